/* Fork-join over index ranges for kernels' big loops.
 *
 * One process-wide job slot served by persistent worker threads.  A job is
 * [0, n) cut into contiguous chunks, each seat owning an equal share of
 * them; the calling thread and the workers claim their own share's chunks
 * in order with an atomic counter per share, then the chunks left in the
 * others' shares, until none is left, so a worker that is slow to wake (the
 * other cores busy) costs nothing but its wake-up: the caller runs the
 * chunks nobody has claimed.  A worker has the same seat in every job, so
 * the same parts of consecutive layers tend to stay on one core.  Each chunk writes only its own
 * part of the output and the cut depends on n and the thread count only, so
 * results are bit-identical to a single-threaded run whoever runs a chunk.
 *
 * The caller polls a short while (WAIT_SPIN_US) for chunks still running
 * elsewhere before it sleeps: sleeping gives its core away, and on a busy
 * machine getting it back took longer than the rest of a small node.
 *
 * A job posted while the slot is taken (a kernel's range function calling
 * rt_parallel_for, or two sessions running on different threads) runs on
 * the calling thread alone.
 *
 * Each thread taking part in a job has a seat, 0 (the caller) to threads - 1
 * (rt_parallel_seat): a kernel's range function picks its scratch by it, so
 * that chunks can be many and claimed by whoever is free (cores are not
 * equally fast: on the 2-vCPU VMs here one ran 30% slower than the other)
 * while scratch stays one per thread. */
#include "runtime/kernel.h"

#define MAX_WORKERS       63
#define CHUNKS_PER_THREAD 4     /* so a late or preempted thread leaves little to wait for */
/* Polling for the next job costs the caller its share of the CPU on a
 * loaded machine (the scheduler shares the cores between all runnable
 * threads); with 2 cores at load 4-7, MobileNetV2 at 2 threads ran best
 * with no polling by the workers (bench/README.md, branch perf16c).  On an
 * idle machine waking a sleeping thread costs more than many nodes take:
 * polling 1 ms made SqueezeNet 1.1, ResNet-18 and MobileNetV2 8-10% faster
 * at 2 threads (bench/README.md, session 15). */
#define SPIN_US           1000  /* a worker polls this long for the next job, then sleeps */
#define WAIT_SPIN_US      1000  /* the caller polls this long for the last chunks, then sleeps */

typedef struct
{
  GMutex    busy;           /* held by the thread whose job is posted */
  GMutex    lock;           /* for the two conditions */
  GCond     wake;           /* sleeping workers: a new job */
  GCond     finished;       /* the caller: the last chunk is done */
  gint      gen;            /* even: a job (or none) posted; odd: being set up */
  gint      active;         /* workers reading the current job's fields */
  gint      sleepers;       /* workers waiting on wake */
  gint      caller_waiting; /* the caller waits on finished */
  gint      done;           /* chunks finished */
  /* Seat s owns chunks [first[s], first[s + 1]) and claims them in order
   * from next[s]; a seat done with its own claims the others' (the same
   * counters, so each chunk runs once). */
  struct { gint v; char pad[60]; } next[MAX_WORKERS + 1];   /* a line each */
  gint      first[MAX_WORKERS + 2];
  gint      max_seats;      /* the job's thread count */
  /* The job: written only while gen is odd and no worker is active. */
  RtRangeFn fn;
  gpointer  data;
  gint64    n;
  gint      chunks;
} Pool;

static Pool P;              /* statically allocated GMutex/GCond need no init */
static _Thread_local gint seat;   /* this thread's seat in the job it runs chunks of */
static GMutex workers_lock;
static gint n_workers;

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

/* Runs chunks until none is left to claim: this seat's own first, then the
 * others'. */
static void
run_chunks (void)
{
  gint chunks = P.chunks, seats = P.max_seats;
  for (gint i = 0; i < seats; i++)
    {
      gint s = (seat + i) % seats;
      for (;;)
        {
          gint c = g_atomic_int_add (&P.next[s].v, 1);
          if (c >= P.first[s + 1])
            break;
          P.fn (P.n * c / chunks, P.n * (c + 1) / chunks, P.data);
          if (g_atomic_int_add (&P.done, 1) + 1 == chunks
              && g_atomic_int_get (&P.caller_waiting))
            {
              g_mutex_lock (&P.lock);
              g_cond_broadcast (&P.finished);
              g_mutex_unlock (&P.lock);
            }
        }
    }
}

static gboolean
new_job (gint g, gint seen)
{
  return g != seen && (g & 1) == 0;
}

/* Waits until a job other than `seen` is posted; returns its gen. */
static gint
wait_job (gint seen)
{
  gint64 t0 = 0;
  for (guint i = 1;; i++)
    {
      gint g = g_atomic_int_get (&P.gen);
      if (new_job (g, seen))
        return g;
      cpu_relax ();
      if (i % 64 == 0)
        {
          gint64 now = g_get_monotonic_time ();
          if (t0 == 0)
            t0 = now;
          else if (now - t0 > SPIN_US)
            break;
        }
    }
  gint g;
  g_mutex_lock (&P.lock);
  g_atomic_int_inc (&P.sleepers);
  while (!new_job (g = g_atomic_int_get (&P.gen), seen))
    g_cond_wait (&P.wake, &P.lock);
  g_atomic_int_dec_and_test (&P.sleepers);
  g_mutex_unlock (&P.lock);
  return g;
}

typedef struct
{
  gint seen;   /* the gen when the worker was made */
  gint id;     /* 1, 2, ...: its seat in every job wide enough */
} WorkerStart;

static gpointer
worker (gpointer start_p)
{
  WorkerStart *start = start_p;
  gint seen = start->seen, id = start->id;
  g_free (start);
  for (;;)
    {
      gint g = wait_job (seen);
      seen = g;
      /* Announce ourselves, then check the job is still the one we saw: a
       * caller setting up the next one waits for active == 0 first. */
      g_atomic_int_inc (&P.active);
      if (g_atomic_int_get (&P.gen) == g)
        {
          /* The same seat in every job, so that a seat's chunks (the same
           * parts of a layer's output from one node to the next) stay in
           * one core's cache; a seat past the job's threads (a worker made
           * for an earlier, wider job) leaves the chunks to the others. */
          if (id < P.max_seats)
            {
              seat = id;
              run_chunks ();
              seat = 0;
            }
        }
      g_atomic_int_dec_and_test (&P.active);
    }
  return NULL;
}

/* Starts workers up to `want` (called with P.busy held, gen even). */
static void
ensure_workers (gint want)
{
  want = MIN (want, MAX_WORKERS);
  if (g_atomic_int_get (&n_workers) >= want)
    return;
  g_mutex_lock (&workers_lock);
  while (n_workers < want)
    {
      WorkerStart *start = g_new (WorkerStart, 1);
      start->seen = g_atomic_int_get (&P.gen);
      start->id = n_workers + 1;
      GThread *t = g_thread_try_new ("symonnx-rt", worker, start, NULL);
      if (t == NULL)
        {
          g_free (start);
          break;   /* fewer workers: the caller runs what they would have */
        }
      g_thread_unref (t);
      g_atomic_int_inc (&n_workers);
    }
  g_mutex_unlock (&workers_lock);
}

void
rt_parallel_for (const RtCall *call, gint64 n, gint64 min_chunk, RtRangeFn fn, gpointer data)
{
  gint64 threads = MIN (rt_call_threads (call), MAX_WORKERS + 1);
  gint64 most = min_chunk > 0 ? n / min_chunk : n;
  if (MIN (threads, most) <= 1 || !g_mutex_trylock (&P.busy))
    {
      /* on this thread alone, so in seat 0 (a worker's range function
       * calling here has a seat of its outer job's) */
      gint outer = seat;
      seat = 0;
      if (n > 0)
        fn (0, n, data);
      seat = outer;
      return;
    }
  gint chunks = (gint) MIN (threads * CHUNKS_PER_THREAD, most);
  ensure_workers ((gint) threads - 1);

  /* Set up: gen odd, wait for workers still leaving the last job. */
  gint g = g_atomic_int_get (&P.gen);
  g_atomic_int_set (&P.gen, (gint) ((guint) g + 1));
  for (guint i = 1; g_atomic_int_get (&P.active) > 0; i++)
    if (i % 1024 == 0)
      g_thread_yield ();
    else
      cpu_relax ();
  P.fn = fn;
  P.data = data;
  P.n = n;
  P.chunks = chunks;
  g_atomic_int_set (&P.done, 0);
  /* no more seats than chunks: a caller sizing scratch for MIN (threads,
   * n) seats (n chunks at most) has enough */
  P.max_seats = (gint) MIN (threads, chunks);
  for (gint s = 0; s <= P.max_seats; s++)
    P.first[s] = (gint) ((gint64) chunks * s / P.max_seats);
  for (gint s = 0; s < P.max_seats; s++)
    g_atomic_int_set (&P.next[s].v, P.first[s]);
  g_atomic_int_set (&P.caller_waiting, 0);
  g_atomic_int_set (&P.gen, (gint) ((guint) g + 2));
  if (g_atomic_int_get (&P.sleepers) > 0)
    {
      g_mutex_lock (&P.lock);
      g_cond_broadcast (&P.wake);
      g_mutex_unlock (&P.lock);
    }

  run_chunks ();

  /* Chunks other threads claimed: poll a while, then sleep. */
  gint64 t0 = 0;
  for (guint i = 1; g_atomic_int_get (&P.done) < chunks; i++)
    {
      cpu_relax ();
      if (i % 64 == 0)
        {
          gint64 now = g_get_monotonic_time ();
          if (t0 == 0)
            t0 = now;
          else if (now - t0 > WAIT_SPIN_US)
            {
              g_mutex_lock (&P.lock);
              g_atomic_int_set (&P.caller_waiting, 1);
              while (g_atomic_int_get (&P.done) < chunks)
                g_cond_wait (&P.finished, &P.lock);
              g_mutex_unlock (&P.lock);
              break;
            }
        }
    }
  g_mutex_unlock (&P.busy);
}

gint
rt_parallel_seat (void)
{
  return seat;
}
