/* Fork-join over index ranges for kernels' big loops, on one process-wide
 * GThreadPool.  The calling thread runs the first chunk itself; chunks are
 * contiguous and each writes only its own part of the output, so results
 * are bit-identical to a single-threaded run. */
#include "runtime/kernel.h"

typedef struct
{
  RtRangeFn fn;
  gpointer  data;
  GMutex    lock;
  GCond     done;
  guint     pending;
} Job;

typedef struct
{
  Job   *job;
  gint64 begin, end;
} Chunk;

static void
run_chunk (gpointer item, gpointer user_data)
{
  Chunk *c = item;
  Job *job = c->job;
  (void) user_data;
  job->fn (c->begin, c->end, job->data);
  g_mutex_lock (&job->lock);
  if (--job->pending == 0)
    g_cond_signal (&job->done);
  g_mutex_unlock (&job->lock);
}

static GThreadPool *
pool (void)
{
  static gsize once = 0;
  static GThreadPool *p;
  if (g_once_init_enter (&once))
    {
      /* Non-exclusive: threads are started on demand and shared. */
      p = g_thread_pool_new (run_chunk, NULL, 64, FALSE, NULL);
      g_once_init_leave (&once, 1);
    }
  return p;
}

void
rt_parallel_for (const RtCall *call, gint64 n, gint64 min_chunk, RtRangeFn fn, gpointer data)
{
  gint64 threads = rt_call_threads (call);
  gint64 tasks = MIN (threads, min_chunk > 0 ? n / min_chunk : n);
  if (tasks <= 1 || pool () == NULL)
    {
      if (n > 0)
        fn (0, n, data);
      return;
    }
  Job job = { .fn = fn, .data = data, .pending = (guint) tasks - 1 };
  g_mutex_init (&job.lock);
  g_cond_init (&job.done);
  g_autofree Chunk *chunks = g_new (Chunk, tasks);
  for (gint64 t = 0; t < tasks; t++)
    {
      chunks[t].job = &job;
      chunks[t].begin = n * t / tasks;
      chunks[t].end = n * (t + 1) / tasks;
    }
  for (gint64 t = 1; t < tasks; t++)
    if (!g_thread_pool_push (pool (), &chunks[t], NULL))
      run_chunk (&chunks[t], NULL);   /* no thread: run it here */
  fn (chunks[0].begin, chunks[0].end, data);
  g_mutex_lock (&job.lock);
  while (job.pending > 0)
    g_cond_wait (&job.done, &job.lock);
  g_mutex_unlock (&job.lock);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.done);
}
