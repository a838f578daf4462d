/*
 * cli.h — the command line described once. main.c holds the tables (commands,
 * options, exit codes, examples, files); usage.c prints each command's
 * --help, the man page lockspan(1) and the bash and zsh completions from
 * them, so none of these can disagree with another or with what main.c
 * accepts.
 */
#ifndef LS_CLI_H
#define LS_CLI_H

#include <stdio.h>

/* The commands an option belongs to (cli_option.commands). */
#define CMD_ANALYZE 1u
#define CMD_INGEST 2u
#define CMD_REPORT 4u
#define CMD_ALL (CMD_ANALYZE | CMD_INGEST | CMD_REPORT)

typedef struct cli_command {
    const char *name;
    unsigned bit;         /* CMD_*: the options it takes */
    const char *synopsis; /* after "lockspan NAME " */
    const char *summary;  /* one line for the command list */
    const char *help;     /* the paragraph of its --help and man page */
} cli_command;

typedef struct cli_option {
    int id;               /* getopt_long's value: a letter or an OPT_* of main.c */
    const char *name;     /* long name, without "--" */
    char letter;          /* short name, or 0 */
    const char *arg;      /* the argument's name in help (FILE, N), NULL for a flag */
    const char *values;   /* its values for shell completion ("md json html"), or NULL */
    unsigned commands;    /* CMD_* */
    const char *help;     /* --help text; wrapped when printed */
    const char *man;      /* the man page's text when longer than help, else NULL */
} cli_option;

typedef struct cli_text {
    const char *head;     /* exit code, example command, file name */
    const char *body;
} cli_text;

typedef struct cli_spec {
    const cli_command *commands;
    int ncommands;
    const cli_option *options;
    int noptions;
    const char *description; /* what lockspan does (top of --help and the man page) */
    const char *inputs;      /* what PATH may be */
    const cli_text *exits, *examples, *files, *environment;
    int nexits, nexamples, nfiles, nenvironment;
    const char *version;
} cli_spec;

/* lockspan --help; with cmd, lockspan CMD --help. */
void cli_print_help(FILE *f, const cli_spec *spec, const cli_command *cmd);
/* The man page lockspan(1) in roff (lockspan --help-man). */
void cli_print_man(FILE *f, const cli_spec *spec);
/* Completion script for shell "bash" or "zsh"; -1 for another shell. */
int cli_print_completion(FILE *f, const cli_spec *spec, const char *shell);

#endif
