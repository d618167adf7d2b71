/* The symonnx command-line tool: one table entry per subcommand. */
#pragma once

#include "symonnx.h"
#include "export/export.h"

/* Exit codes, documented in doc/cli.md (generated from this table by
 * `symonnx help --markdown`). */
#define CLI_EXIT_CODES(X)                                                        \
  X (CLI_EXIT_OK,      0, "success")                                             \
  X (CLI_EXIT_FAILED,  1, "the command ran and found a problem (a check failed, outputs differ beyond tolerance, a test case failed)") \
  X (CLI_EXIT_USAGE,   2, "bad command line (unknown command or option, missing argument)") \
  X (CLI_EXIT_INPUT,   3, "an input file cannot be read or is malformed")        \
  X (CLI_EXIT_PROCESS, 4, "export or execution failed (unsupported operator, missing kernel, ...)") \
  X (CLI_EXIT_OUTPUT,  5, "an output file cannot be written")

typedef enum
{
#define CLI_EXIT_ENUM(name, value, doc) name = value,
  CLI_EXIT_CODES (CLI_EXIT_ENUM)
#undef CLI_EXIT_ENUM
} CliExit;

typedef struct
{
  const char   *name;
  const char   *parameters;   /* "FILE" */
  const char   *summary;      /* one line */
  const char   *description;  /* paragraphs for --help and doc/cli.md */
  /* Builds the option entries (pointing at the command's own state) and
   * runs the command on the arguments left after parsing. */
  const GOptionEntry *(*options) (void);
  int         (*run) (int argc, char **argv);
} CliCommand;

/* Prints "symonnx COMMAND: message" on stderr as one line. */
void cli_error (const char *command, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Does the file start (after blanks) with "graph(" — trace or symonnx
 * text rather than an .onnx model?  FALSE when it cannot be read. */
gboolean cli_file_is_graph_text (const char *path);

/* Loads a graph from a trace/text file or (from later modules) a model
 * file, by content; reports errors with cli_error and returns NULL. */
Graph *cli_load_graph (const char *command, const char *path, CliExit *exit_code);

/* tools/cli-export.c */
/* FALSE (and the error printed) when opset is outside the built-in tables. */
gboolean cli_opset_ok (const char *command, int opset);
/* Prints a multi-line message as "symonnx COMMAND: PATH: first line" and
 * the following lines as they are (one failing node each). */
void     cli_error_lines (const char *command, const char *path, const char *message);
/* export_graph_report on `trace`, printing its warnings on stderr and its
 * error (one problem a line).  NULL on failure.  (transfer full) */
Graph   *cli_export (const char *command, const char *path, const Graph *trace,
                     const ExportOptions *o);

/* tools/cli-limits.c: --max-seconds and --max-loop-iterations, for the
 * commands that run graphs (CLI_LIMIT_ENTRIES in their option tables). */
extern double cli_max_seconds;
extern gint64 cli_max_loop_iterations;
extern gint64 cli_max_tensor_mib;
#define CLI_LIMIT_ENTRIES                                                            \
  { "max-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &cli_max_seconds,                      \
    "Stop a run that takes longer than S seconds, with an error (0, the default: no limit)", "S" }, \
  { "max-loop-iterations", 0, 0, G_OPTION_ARG_INT64, &cli_max_loop_iterations,         \
    "Stop a Loop node after N iterations, with an error (0: the default, 10000000)", "N" }, \
  { "max-tensor-mib", 0, 0, G_OPTION_ARG_INT64, &cli_max_tensor_mib,                  \
    "Refuse, with an error, any tensor larger than N MiB, an empty one sized as if each 0 dim were 1 (0: the default, 8192)", "N" }
gboolean cli_apply_limits (const char *command, RtOptions *o);

/* tools/cli-device.c: --device cpu|cuda and --verbose (CLI_DEVICE_ENTRIES). */
extern char *cli_device;
extern gboolean cli_device_verbose;
#define CLI_DEVICE_ENTRY                                                             \
  { "device", 0, 0, G_OPTION_ARG_STRING, &cli_device,                                \
    "Run on DEVICE: cpu (the default) or cuda (an NVIDIA GPU, doc/cuda.md; nodes without a "  \
    "CUDA kernel run on the CPU). No usable device is an error (exit status 4)", "DEVICE" }
#define CLI_DEVICE_ENTRIES                                                           \
  CLI_DEVICE_ENTRY,                                                                  \
  { "verbose", 0, 0, G_OPTION_ARG_NONE, &cli_device_verbose,                         \
    "Print on stderr where the nodes ran: the device, each node run on the CPU instead and " \
    "why, and the copies between host and device", NULL }
/* Sets o->device; an unknown name is CLI_EXIT_USAGE, a device that cannot
 * be used CLI_EXIT_PROCESS, each with its message printed. */
CliExit  cli_apply_device (const char *command, RtOptions *o);
/* With --verbose: rt_session_fallback_report on stderr. */
void     cli_device_report (const RtSession *s);
/* `run --profile`: the time per op type and the slowest nodes
 * (tools/run-profile.c); nothing when the session was not profiled. */
void     cli_print_profile (FILE *out, const RtSession *s);

extern const CliCommand cli_cmd_info;
extern const CliCommand cli_cmd_print;
extern const CliCommand cli_cmd_convert;
extern const CliCommand cli_cmd_check;
extern const CliCommand cli_cmd_export;
extern const CliCommand cli_cmd_ops;
extern const CliCommand cli_cmd_run;
extern const CliCommand cli_cmd_test_suite;
extern const CliCommand cli_cmd_verify;
