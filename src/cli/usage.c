/*
 * usage.c — everything that describes the command line, printed from the
 * tables in main.c: --help for lockspan and each command, the man page
 * lockspan(1) (roff), and the bash and zsh completions. The build writes the
 * man page and completions with the built binary, and ctest compares the
 * option sets of all four, so nothing here is written twice by hand.
 */
#include <string.h>

#include "cli.h"

#define HELP_WIDTH 79
#define HELP_INDENT 23 /* where an option's text starts in --help */
#define ZONEINFO_DIR "/usr/share/zoneinfo" /* where bash completion finds --tz zones */
#define HELP_EXAMPLES 3
/* The docs' directory the man page names; `cmake --install` writes the
 * installed page with this text replaced by the prefix's (CMakeLists.txt). */
#define MAN_DOCDIR "/usr/share/doc/lockspan" /* examples at the end of lockspan --help */

/*
 * Print `text` from column `col` (already reached), wrapped at HELP_WIDTH;
 * continuation lines start at column `indent`. A '\n' in text starts a new
 * line.
 */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    while (*p) {
        size_t w = strcspn(p, " \n");
        if (col > indent && col + 1 + (int)w > HELP_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, w, f);
        col += (int)w;
        p += w;
        if (*p == '\n') {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
        while (*p == ' ' || *p == '\n')
            p++;
    }
    fputc('\n', f);
}

/* "-o, --output FILE" or "--db FILE": an option as --help names it. */
static int option_head(char *buf, size_t n, const cli_option *o)
{
    int len;
    if (o->letter)
        len = snprintf(buf, n, "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "",
                       o->arg ? o->arg : "");
    else
        len = snprintf(buf, n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return len;
}

static void print_command_help(FILE *f, const cli_spec *spec, const cli_command *cmd)
{
    int i;
    fprintf(f, "usage: lockspan %s %s\n\n", cmd->name, cmd->synopsis);
    wrap(f, cmd->help, 0, 0);
    fputs("\noptions:\n", f);
    for (i = 0; i < spec->noptions; i++) {
        const cli_option *o = &spec->options[i];
        char head[128];
        int len;
        if (!(o->commands & cmd->bit))
            continue;
        len = option_head(head, sizeof(head), o);
        fprintf(f, "  %s", head);
        if (2 + len + 2 > HELP_INDENT)
            fprintf(f, "\n%*s", HELP_INDENT, "");
        else
            fprintf(f, "%*s", HELP_INDENT - 2 - len, "");
        wrap(f, o->help, HELP_INDENT, HELP_INDENT);
    }
}

/* Command lines as written (not wrapped: a shell would read a broken line
 * as two commands), one a line, indented. */
static void print_command_lines(FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t w = strcspn(p, "\n");
        fprintf(f, "    %.*s\n", (int)w, p);
        p += w;
        if (*p == '\n')
            p++;
    }
}

/* The first HELP_EXAMPLES examples of the man page, last in --help: a
 * reader's first command is one of them. */
static void print_help_examples(FILE *f, const cli_spec *spec)
{
    int i;
    fputs("\nexamples:\n", f);
    for (i = 0; i < spec->nexamples && i < HELP_EXAMPLES; i++) {
        fprintf(f, "%s  ", i ? "\n" : "");
        wrap(f, spec->examples[i].body, 2, 2);
        print_command_lines(f, spec->examples[i].head);
    }
}

void cli_print_help(FILE *f, const cli_spec *spec, const cli_command *cmd)
{
    int i;
    if (cmd) {
        print_command_help(f, spec, cmd);
        return;
    }
    fputs("usage: lockspan <command> [options] ...\n\n", f);
    wrap(f, spec->description, 0, 0);
    fputs("\ncommands:\n", f);
    for (i = 0; i < spec->ncommands; i++) {
        const cli_command *c = &spec->commands[i];
        fprintf(f, "  %-12s", c->name);
        wrap(f, c->summary, 14, 14);
    }
    fputs("  help [CMD]  show help for a command\n"
          "  version     print the version\n\n", f);
    wrap(f, spec->inputs, 0, 0);
    fputs("\nexit status:\n", f);
    for (i = 0; i < spec->nexits; i++) {
        fprintf(f, "  %-3s", spec->exits[i].head);
        wrap(f, spec->exits[i].body, 5, 5);
    }
    fputs("\nRun 'lockspan <command> --help' for the options of a command, 'man lockspan'\n"
          "for all of it.\n", f);
    print_help_examples(f, spec);
}

/* ---- man page ---- */

/* Text for roff: backslashes and hyphens escaped, no line starting with a
 * control character; a '\n' in text is a line break (.br). */
static void roff(FILE *f, const char *s)
{
    int bol = 1;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        bol = 0;
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else if (*s == '\n') {
            fputs("\n.br\n", f);
            bol = 1;
        } else
            fputc(*s, f);
    }
}

static void roff_line(FILE *f, const char *s)
{
    roff(f, s);
    fputc('\n', f);
}

static void man_option(FILE *f, const cli_spec *spec, const cli_option *o)
{
    int i, n = 0;
    fputs(".TP\n", f);
    if (o->letter)
        fprintf(f, "\\fB\\-%c\\fR, ", o->letter);
    fputs("\\fB\\-\\-", f);
    roff(f, o->name);
    fputs("\\fR", f);
    if (o->arg) {
        fputs(" \\fI", f);
        roff(f, o->arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff(f, o->man ? o->man : o->help);
    if ((o->commands & CMD_ALL) != CMD_ALL) {
        fputs(" (", f);
        for (i = 0; i < spec->ncommands; i++)
            if (o->commands & spec->commands[i].bit)
                fprintf(f, "%s\\fB%s\\fR", n++ ? ", " : "", spec->commands[i].name);
        fputs(")", f);
    }
    fputc('\n', f);
}

static void man_texts(FILE *f, const char *section, const cli_text *t, int n, int literal)
{
    int i;
    fprintf(f, ".SH %s\n", section);
    for (i = 0; i < n; i++) {
        if (literal) {
            fputs(".PP\n", f);
            roff_line(f, t[i].body);
            fputs(".PP\n.RS 4\n.nf\n", f);
            roff_line(f, t[i].head);
            fputs(".fi\n.RE\n", f);
        } else {
            fputs(".TP\n\\fB", f);
            roff(f, t[i].head);
            fputs("\\fR\n", f);
            roff_line(f, t[i].body);
        }
    }
}

void cli_print_man(FILE *f, const cli_spec *spec)
{
    int i;
    fprintf(f, ".\\\" lockspan(1), printed by 'lockspan --help-man' from the option table of\n"
               ".\\\" src/cli/main.c: edit that table, not this page.\n"
               ".TH LOCKSPAN 1 \"\" \"lockspan %s\" \"User Commands\"\n"
               ".SH NAME\n"
               "lockspan \\- link PostgreSQL lock waits to the transactions that blocked them\n"
               ".SH SYNOPSIS\n",
            spec->version);
    for (i = 0; i < spec->ncommands; i++) {
        fprintf(f, ".B lockspan %s\n", spec->commands[i].name);
        roff_line(f, spec->commands[i].synopsis);
        fputs(".br\n", f);
    }
    fputs(".SH DESCRIPTION\n", f);
    roff_line(f, spec->description);
    fputs(".SH COMMANDS\n", f);
    for (i = 0; i < spec->ncommands; i++) {
        fprintf(f, ".TP\n.B %s\n", spec->commands[i].name);
        roff_line(f, spec->commands[i].help);
    }
    fputs(".SH OPTIONS\n", f);
    for (i = 0; i < spec->noptions; i++)
        man_option(f, spec, &spec->options[i]);
    fputs(".SH INPUTS\n", f);
    roff_line(f, spec->inputs);
    man_texts(f, "EXIT STATUS", spec->exits, spec->nexits, 0);
    man_texts(f, "ENVIRONMENT", spec->environment, spec->nenvironment, 0);
    man_texts(f, "FILES", spec->files, spec->nfiles, 0);
    man_texts(f, "EXAMPLES", spec->examples, spec->nexamples, 1);
    fputs(".SH SEE ALSO\n"
          ".BR sqlite3 (1),\n"
          ".BR postgres (1);\n"
          "the README and docs/ in " MAN_DOCDIR ".\n",
          f);
}

/* ---- shell completion ---- */

static void bash_words(FILE *f, const cli_spec *spec, unsigned bit)
{
    int i, n = 0;
    for (i = 0; i < spec->noptions; i++) {
        const cli_option *o = &spec->options[i];
        if (!(o->commands & bit))
            continue;
        if (o->letter)
            fprintf(f, "%s-%c", n++ ? " " : "", o->letter);
        fprintf(f, "%s--%s", n++ ? " " : "", o->name);
    }
}

/* An option's argument is a file when help names it FILE. */
static int arg_is_file(const cli_option *o)
{
    return o->arg && strcmp(o->arg, "FILE") == 0;
}

/* An option's argument is a tz database name when help names it ZONE:
 * completed from the system's zoneinfo (bash) or zsh's _time_zone. */
static int arg_is_zone(const cli_option *o)
{
    return o->arg && strcmp(o->arg, "ZONE") == 0;
}

static void print_bash(FILE *f, const cli_spec *spec)
{
    int i;
    fputs("# bash completion for lockspan, printed by 'lockspan --help-completion bash'\n"
          "# from the option table of src/cli/main.c.\n"
          "_lockspan()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    for (i = 0; i < spec->ncommands; i++)
        fprintf(f, "%s ", spec->commands[i].name);
    fputs("help version --help --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case $prev in\n",
          f);
    for (i = 0; i < spec->noptions; i++) {
        const cli_option *o = &spec->options[i];
        if (!o->arg)
            continue;
        fputs("    ", f);
        if (o->letter)
            fprintf(f, "-%c|", o->letter);
        fprintf(f, "--%s)\n", o->name);
        if (o->values)
            fprintf(f, "        COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
                    o->values);
        else if (arg_is_zone(o))
            fputs("        COMPREPLY=($(compgen -W \"$(cd \"${TZDIR:-" ZONEINFO_DIR "}\" 2>/dev/null && "
                  "find -L . -type f -name '[A-Z]*' 2>/dev/null | sed 's|^\\./||')\" "
                  "-- \"$cur\")); return ;;\n", f);
        else if (arg_is_file(o))
            fputs("        COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", f);
        else
            fputs("        return ;;\n", f);
    }
    fputs("    esac\n"
          "    case ${COMP_WORDS[1]} in\n",
          f);
    for (i = 0; i < spec->ncommands; i++) {
        fprintf(f, "    %s) opts=\"", spec->commands[i].name);
        bash_words(f, spec, spec->commands[i].bit);
        fputs("\" ;;\n", f);
    }
    fputs("    help)\n        COMPREPLY=($(compgen -W \"", f);
    for (i = 0; i < spec->ncommands; i++)
        fprintf(f, "%s%s", i ? " " : "", spec->commands[i].name);
    fputs("\" -- \"$cur\")); return ;;\n"
          "    *) return ;;\n"
          "    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -F _lockspan lockspan\n",
          f);
}

/* An option's help cut to its first clause (or its first words when that
 * clause is a single word), as zsh shows it beside the name. */
static void zsh_description(FILE *f, const char *help)
{
    size_t n = strcspn(help, ";(\n"), len = strlen(help);
    const char *stop = strstr(help, ". ");
    size_t i;
    if (stop && (size_t)(stop - help) < n)
        n = (size_t)(stop - help);
    if (n < 12)
        n = len;
    if (n > 60) /* at a word's end */
        for (n = 60; n > 0 && help[n] != ' ';)
            n--;
    while (n > 0 && strchr(" :,", help[n - 1]))
        n--;
    for (i = 0; i < n; i++) {
        if (help[i] == '\'')
            fputs("'\\''", f);
        else if (help[i] == '[' || help[i] == ']' || help[i] == '\\')
            fprintf(f, "\\%c", help[i]);
        else if (help[i] != '(' && help[i] != ')')
            fputc(help[i], f);
    }
}

static void zsh_spec(FILE *f, const cli_option *o, const char *flag)
{
    fprintf(f, " \\\n      '*%s[", flag);
    zsh_description(f, o->help);
    fputc(']', f);
    if (o->arg) {
        fprintf(f, ":%s:", o->arg);
        if (o->values)
            fprintf(f, "(%s)", o->values);
        else if (arg_is_zone(o))
            fputs("_time_zone", f);
        else if (arg_is_file(o))
            fputs("_files", f);
        else
            fputs(" ", f);
    }
    fputc('\'', f);
}

static void print_zsh(FILE *f, const cli_spec *spec)
{
    int i, j;
    fputs("#compdef lockspan\n"
          "# zsh completion for lockspan, printed by 'lockspan --help-completion zsh'\n"
          "# from the option table of src/cli/main.c.\n"
          "_lockspan() {\n"
          "  local -a cmds\n"
          "  cmds=(\n",
          f);
    for (i = 0; i < spec->ncommands; i++) {
        fprintf(f, "    '%s:", spec->commands[i].name);
        zsh_description(f, spec->commands[i].summary);
        fputs("'\n", f);
    }
    fputs("    'help:show help for a command'\n"
          "    'version:print the version'\n"
          "  )\n"
          "  if (( CURRENT == 2 )); then\n"
          "    _describe command cmds\n"
          "    return\n"
          "  fi\n"
          "  local cmd=$words[2]\n"
          "  shift words\n"
          "  (( CURRENT-- ))\n"
          "  case $cmd in\n",
          f);
    for (i = 0; i < spec->ncommands; i++) {
        const cli_command *c = &spec->commands[i];
        char flag[64];
        fprintf(f, "    %s)\n      _arguments -s", c->name);
        for (j = 0; j < spec->noptions; j++) {
            const cli_option *o = &spec->options[j];
            if (!(o->commands & c->bit))
                continue;
            if (o->letter) {
                snprintf(flag, sizeof(flag), "-%c", o->letter);
                zsh_spec(f, o, flag);
            }
            snprintf(flag, sizeof(flag), "--%s", o->name);
            zsh_spec(f, o, flag);
        }
        if (strstr(c->synopsis, "PATH"))
            fputs(" \\\n      '*:PATH:_files'", f);
        fputs(" ;;\n", f);
    }
    fputs("    help)\n      _describe command cmds ;;\n"
          "  esac\n"
          "}\n"
          "_lockspan \"$@\"\n",
          f);
}

int cli_print_completion(FILE *f, const cli_spec *spec, const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        print_bash(f, spec);
    else if (strcmp(shell, "zsh") == 0)
        print_zsh(f, spec);
    else
        return -1;
    return 0;
}
