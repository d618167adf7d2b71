/* rt_parallel_for (runtime/parallel.c): every index of [0, n) is run
 * exactly once, in the contiguous chunks the thread count and min_chunk
 * give (n·c/chunks .. n·(c+1)/chunks, whoever runs them); a second thread
 * really takes part; a range function that calls rt_parallel_for again,
 * and two threads posting jobs at the same time, run correctly (the
 * second job on its caller's thread alone); thousands of small jobs back
 * to back (the executor's pattern) lose no chunk; each thread taking part
 * has its own seat, 0 the caller's. */
#include "tests/runtime/fusion-testutil.h"
#include "runtime/kernel.h"

/* A session of g with `threads` threads. */
static RtSession *
session_of (Graph *g, int threads)
{
  RtOptions o;
  rt_options_init (&o);
  o.threads = threads;
  g_autoptr (GError) error = NULL;
  RtSession *s = rt_session_new (g, &o, &error);
  g_assert_no_error (error);
  return s;
}

/* A session with `threads` threads, for its RtCall's thread count. */
static RtSession *
session_with (int threads, Graph **gp)
{
  Graph *g = fz_new_graph_at (13);
  const gint64 d[1] = { 4 };
  GraphValue *y = graph_op (g, "Relu", fz_input (g, "x", 1, d), NULL);
  graph_value_set_name (y, "y");
  graph_add_output (g, y);
  *gp = g;
  return session_of (g, threads);
}

typedef struct
{
  gint64  n;
  gint   *hits;      /* per index */
  gint64 *begins;    /* per call, in any order */
  gint    calls;
  gint64  max_calls;
} Cover;

static void
cover_range (gint64 begin, gint64 end, gpointer data)
{
  Cover *c = data;
  g_assert_cmpint (begin, <, end);
  g_assert_cmpint (end, <=, c->n);
  gint k = g_atomic_int_add (&c->calls, 1);
  g_assert_cmpint (k, <, c->max_calls);
  c->begins[k] = begin;
  for (gint64 i = begin; i < end; i++)
    g_atomic_int_inc (&c->hits[i]);
}

static int
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

/* One job; checks coverage and the cut.  Returns the number of chunks. */
static gint
run_cover (RtCall *call, gint64 n, gint64 min_chunk)
{
  Cover c = { n, g_new0 (gint, MAX (n, 1)), g_new0 (gint64, 4096), 0, 4096 };
  rt_parallel_for (call, n, min_chunk, cover_range, &c);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpint (c.hits[i], ==, 1);
  if (n == 0)
    g_assert_cmpint (c.calls, ==, 0);
  else
    {
      /* The cut: chunk k starts at n·k/chunks. */
      qsort (c.begins, (gsize) c.calls, sizeof (gint64), cmp_i64);
      for (gint k = 0; k < c.calls; k++)
        g_assert_cmpint (c.begins[k], ==, n * k / c.calls);
    }
  gint calls = c.calls;
  g_free (c.hits);
  g_free (c.begins);
  return calls;
}

static void
test_cover (void)
{
  const int threads[] = { 1, 2, 3, 8 };
  const gint64 ns[] = { 0, 1, 2, 5, 100, 10007, 1 << 20 };
  const gint64 mins[] = { 0, 1, 7, 1000, 1 << 21 };
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      Graph *g;
      g_autoptr (RtSession) s = session_with (threads[t], &g);
      RtCall call = { .ctx = (RtContext *) s };
      g_assert_cmpint (rt_call_threads (&call), ==, threads[t]);
      for (guint i = 0; i < G_N_ELEMENTS (ns); i++)
        for (guint m = 0; m < G_N_ELEMENTS (mins); m++)
          {
            gint64 n = ns[i], most = mins[m] > 0 ? n / mins[m] : n;
            gint calls = run_cover (&call, n, mins[m]);
            /* One call where one thread or one minimum chunk covers n;
             * else up to 4 chunks per thread, none under min_chunk. */
            if (threads[t] == 1 || most <= 1)
              g_assert_cmpint (calls, ==, n > 0);
            else
              g_assert_cmpint (calls, ==, MIN (threads[t] * 4, most));
          }
      rt_session_free (g_steal_pointer (&s));
      graph_free (g);
    }
}

/* Chunk 0 waits (up to 20 s) until a chunk runs on another thread. */
typedef struct
{
  GThread *caller;
  gint     others;
} Meet;

static void
meet_range (gint64 begin, gint64 end, gpointer data)
{
  Meet *m = data;
  (void) end;
  if (g_thread_self () != m->caller)
    g_atomic_int_inc (&m->others);
  if (begin == 0)
    {
      gint64 t0 = g_get_monotonic_time ();
      while (g_atomic_int_get (&m->others) == 0 && g_get_monotonic_time () - t0 < 20 * G_USEC_PER_SEC)
        g_usleep (100);
    }
}

static void
test_worker_runs (void)
{
  Graph *g;
  g_autoptr (RtSession) s = session_with (2, &g);
  RtCall call = { .ctx = (RtContext *) s };
  for (int round = 0; round < 3; round++)
    {
      Meet m = { g_thread_self (), 0 };
      rt_parallel_for (&call, 8, 1, meet_range, &m);
      g_assert_cmpint (g_atomic_int_get (&m.others), >, 0);
      g_usleep (round * 2000);   /* the next job also after the workers slept */
    }
  rt_session_free (g_steal_pointer (&s));
  graph_free (g);
}

/* A range function that posts a job itself: the inner job runs inline. */
typedef struct
{
  RtCall *call;
  gint   *hits;   /* 64 x 100 */
} Nest;

static void
inner_range (gint64 begin, gint64 end, gpointer data)
{
  gint *row = data;
  g_assert_cmpint (rt_parallel_seat (), ==, 0);   /* run inline: seat 0, not the outer job's */
  for (gint64 i = begin; i < end; i++)
    g_atomic_int_inc (&row[i]);
}

static void
outer_range (gint64 begin, gint64 end, gpointer data)
{
  Nest *n = data;
  for (gint64 r = begin; r < end; r++)
    rt_parallel_for (n->call, 100, 1, inner_range, n->hits + r * 100);
}

/* Two threads each posting 2000 jobs against one pool. */
typedef struct
{
  RtCall *call;
  gint64  bad;
} Poster;

static gpointer
poster (gpointer data)
{
  Poster *p = data;
  for (int j = 0; j < 2000; j++)
    {
      gint64 n = 1 + (j * 37) % 500;
      Cover c = { n, g_new0 (gint, n), g_new0 (gint64, 4096), 0, 4096 };
      rt_parallel_for (p->call, n, 1 + j % 5, cover_range, &c);
      for (gint64 i = 0; i < n; i++)
        p->bad += c.hits[i] != 1;
      g_free (c.hits);
      g_free (c.begins);
    }
  return NULL;
}

static void
test_nested_and_concurrent (void)
{
  Graph *g;
  g_autoptr (RtSession) s = session_with (3, &g);
  RtCall call = { .ctx = (RtContext *) s };
  g_autofree gint *hits = g_new0 (gint, 64 * 100);
  Nest n = { &call, hits };
  rt_parallel_for (&call, 64, 1, outer_range, &n);
  for (int i = 0; i < 64 * 100; i++)
    g_assert_cmpint (hits[i], ==, 1);

  Poster a = { &call, 0 }, b = { &call, 0 };
  GThread *ta = g_thread_new ("poster-a", poster, &a);
  GThread *tb = g_thread_new ("poster-b", poster, &b);
  g_thread_join (ta);
  g_thread_join (tb);
  g_assert_cmpint (a.bad, ==, 0);
  g_assert_cmpint (b.bad, ==, 0);
  rt_session_free (g_steal_pointer (&s));
  graph_free (g);
}

/* Each thread's seat (rt_parallel_seat), recorded per chunk. */
typedef struct
{
  GThread *caller;
  GMutex   lock;
  GHashTable *seat_of;   /* GThread* → seat + 1 */
  gint     bad;
} Seats;

static void
seat_range (gint64 begin, gint64 end, gpointer data)
{
  Seats *st = data;
  gint seat = rt_parallel_seat ();
  g_mutex_lock (&st->lock);
  gpointer had = g_hash_table_lookup (st->seat_of, g_thread_self ());
  if (had && GPOINTER_TO_INT (had) != seat + 1)
    st->bad++;   /* a thread changed seats within one job */
  g_hash_table_insert (st->seat_of, g_thread_self (), GINT_TO_POINTER (seat + 1));
  if ((g_thread_self () == st->caller) != (seat == 0))
    st->bad++;   /* seat 0 is the caller's, and the caller's only */
  g_mutex_unlock (&st->lock);
  for (volatile gint64 i = begin; i < end; i++)
    ;
}

/* Seats are 0 .. MIN (threads, n) - 1, one per thread taking part, also
 * after a wider job left more workers than the next job's threads. */
static void
test_seats (void)
{
  const int threads[] = { 8, 2, 3 };
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      Graph *g;
      g_autoptr (RtSession) s = session_with (threads[t], &g);
      RtCall call = { .ctx = (RtContext *) s };
      for (int round = 0; round < 20; round++)
        {
          /* odd rounds: 2 indices, fewer than the threads, so 2 seats at most */
          gint64 n = round % 2 ? 2 : 1 << 16;
          Seats st = { g_thread_self (), { 0 }, g_hash_table_new (NULL, NULL), 0 };
          g_mutex_init (&st.lock);
          rt_parallel_for (&call, n, 1, seat_range, &st);
          g_assert_cmpint (st.bad, ==, 0);
          GHashTableIter it;
          gpointer seat;
          g_autofree gboolean *taken = g_new0 (gboolean, threads[t]);
          g_hash_table_iter_init (&it, st.seat_of);
          while (g_hash_table_iter_next (&it, NULL, &seat))
            {
              gint k = GPOINTER_TO_INT (seat) - 1;
              g_assert_cmpint (k, >=, 0);
              g_assert_cmpint (k, <, MIN (threads[t], n));
              g_assert_false (taken[k]);   /* one thread per seat */
              taken[k] = TRUE;
            }
          g_hash_table_unref (st.seat_of);
          g_mutex_clear (&st.lock);
        }
      g_assert_cmpint (rt_parallel_seat (), ==, 0);
      rt_session_free (g_steal_pointer (&s));
      graph_free (g);
    }
}


/* Concat copies blocks of its output's bytes in parallel (k-shape.c): with
 * 1 and 3 threads, along the channels (one piece per input) and along the
 * last axis (a block spans many pieces, and a piece two blocks), over
 * 256 KiB so that several blocks are cut, the result is each input's
 * values where a plain loop over the indices puts them. */
static void
test_concat (void)
{
  const gint64 dims[3][3] = { { 2, 24, 1000 }, { 2, 7, 1000 }, { 2, 40, 1000 } };
  for (guint axis = 1; axis <= 2; axis++)
    for (int threads = 1; threads <= 3; threads += 2)
      {
        Graph *g = fz_new_graph_at (13);
        GraphValue *x[3];
        GHashTable *in = fz_inputs_new ();
        Tensor *t[3];
        for (guint i = 0; i < 3; i++)
          {
            gint64 d[3] = { 2, axis == 1 ? dims[i][1] : 30, axis == 1 ? 1000 : dims[i][1] * 41 };
            char name[8];
            g_snprintf (name, sizeof name, "x%u", i);
            x[i] = fz_input (g, name, 3, d);
            t[i] = fz_random_tensor (3, d);
            g_hash_table_insert (in, g_strdup (name), tensor_ref (t[i]));
          }
        GraphValue *y = graph_op (g, "Concat", x[0], x[1], x[2], "axis_i", (gint64) axis, NULL);
        graph_value_set_name (y, "y");
        graph_add_output (g, y);
        g_autoptr (GError) error = NULL;
        RtSession *s = session_of (g, threads);
        GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tensor_unref);
        g_assert_true (rt_session_run (s, in, out, &error));
        Tensor *got = g_hash_table_lookup (out, "y");
        g_assert_nonnull (got);
        g_assert_cmpint (tensor_nbytes (got), >, 256 << 10);
        const gint64 *od = tensor_dims (got);
        const float *yv = tensor_data (got);
        gint64 base = 0;
        for (guint i = 0; i < 3; i++)
          {
            const gint64 *id = tensor_dims (t[i]);
            const float *xv = tensor_data (t[i]);
            for (gint64 a = 0; a < id[0]; a++)
              for (gint64 b = 0; b < id[1]; b++)
                for (gint64 c = 0; c < id[2]; c++)
                  {
                    gint64 ob = axis == 1 ? b + base : b, oc = axis == 2 ? c + base : c;
                    float want = xv[(a * id[1] + b) * id[2] + c];
                    if (yv[(a * od[1] + ob) * od[2] + oc] != want)
                      g_error ("Concat axis %u, %d threads: input %u at (%" G_GINT64_FORMAT ", %"
                               G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") misplaced", axis, threads, i, a, b, c);
                  }
            base += id[axis];
          }
        g_hash_table_unref (out);
        rt_session_free (s);
        g_hash_table_unref (in);
        for (guint i = 0; i < 3; i++)
          tensor_unref (t[i]);
        graph_free (g);
      }
}

void
test_parallel_register (void)
{
  g_test_add_func ("/runtime/parallel/cover", test_cover);
  g_test_add_func ("/runtime/parallel/worker-runs", test_worker_runs);
  g_test_add_func ("/runtime/parallel/nested-and-concurrent", test_nested_and_concurrent);
  g_test_add_func ("/runtime/parallel/seats", test_seats);
  g_test_add_func ("/runtime/parallel/concat", test_concat);
}
