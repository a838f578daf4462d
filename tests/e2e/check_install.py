#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix: the binary, the man page, the
bash and zsh completions and the docs land where Debian puts them; `man -l`
renders the page; and --help, the man page and both completions name the
same options, which are exactly the options the installed binary accepts
(probed one by one). The exit codes the man page lists are the ones the
binary returns, and its examples use only options of their command.

Usage: check_install.py CMAKE BUILD_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report


def run(*args, env=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def help_options(ls, cmd):
    """The options `lockspan CMD --help` lists."""
    out = run(ls, cmd, "--help").stdout
    return set(re.findall(r"^  (?:-\w, )?--([\w-]+)", out, re.M)) | \
        {"-" + m for m in re.findall(r"^  -(\w), --", out, re.M)}


def accepted(ls, cmd, name):
    """Whether the binary takes option `name` ("-o" or "db") for cmd."""
    flag = name if name.startswith("-") else "--" + name
    r = run(ls, cmd, flag, "x", "--db", "/nonexistent/dir/none.db")
    return "not an option" not in r.stderr and "unrecognized option" not in r.stderr \
        and "invalid option" not in r.stderr


def main():
    cmake, build = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-install.")
    try:
        r = run(cmake, "--install", build, "--prefix", tmp)
        check(r.returncode == 0, f"cmake --install: {r.stderr.strip()}")
        paths = {
            "bin": "bin/lockspan",
            "man": "share/man/man1/lockspan.1",
            "bash": "share/bash-completion/completions/lockspan",
            "zsh": "share/zsh/site-functions/_lockspan",
            "readme": "share/doc/lockspan/README.md",
            "docs": "share/doc/lockspan/docs/store.md",
        }
        for what, p in paths.items():
            check(os.path.isfile(os.path.join(tmp, p)), f"installed {p}")
        ls = os.path.join(tmp, paths["bin"])
        check(os.access(ls, os.X_OK), "bin/lockspan is executable")
        r = run(ls, "version")
        check(r.returncode == 0 and r.stdout.startswith("lockspan "), "installed binary runs")

        # The commands, from the main --help.
        top = run(ls, "--help").stdout
        listed = top.split("\ncommands:\n", 1)[-1].split("\n\n", 1)[0]
        cmds = re.findall(r"^  (\w+) ", listed, re.M)
        cmds = [c for c in cmds if c not in ("help", "version")]
        check(cmds == ["analyze", "ingest", "report"], f"commands in --help: {cmds}")

        # Truth: the options the binary accepts, probed with every name any
        # of the four texts mentions (and one it must refuse).
        helps = {c: help_options(ls, c) for c in cmds}
        every = set().union(*helps.values())
        check(not accepted(ls, "analyze", "no-such-option"), "an unknown option is refused")
        for c in cmds:
            truth = {n for n in every if accepted(ls, c, n)}
            check(helps[c] == truth, f"{c} --help lists what it accepts: "
                  f"{sorted(helps[c] ^ truth)}")

        # The man page renders, with its sections, and names every option.
        env = dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0")
        r = run("man", "-l", os.path.join(tmp, paths["man"]), env=env)
        page = re.sub(r".\x08", "", r.stdout)
        check(r.returncode == 0 and "LOCKSPAN(1)" in page, f"man -l renders: {r.stderr[:200]}")
        for sec in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "INPUTS",
                    "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"):
            check(re.search(rf"^{sec}$", page, re.M), f"man page section {sec}")
        opts = page.split("\nOPTIONS\n", 1)[-1].split("\nINPUTS\n", 1)[0]
        man_opts = set(re.findall(r"^ {7}(?:-\w, )?--([\w-]+)", opts, re.M)) | \
            {"-" + m for m in re.findall(r"^ {7}-(\w), --", opts, re.M)}
        check(man_opts == every, f"man page options = --help options: {sorted(man_opts ^ every)}")

        # SEE ALSO names the docs where this prefix put them.
        see = page.split("\nSEE ALSO\n", 1)[-1]
        docdir = os.path.join(tmp, "share/doc/lockspan")
        check(docdir in see, f"man page SEE ALSO names {docdir}, unbroken: {see.strip()!r}")
        roff = open(os.path.join(tmp, paths["man"])).read()
        check(docdir in roff.replace("\\-", "-").replace("\\%", ""),
              f"the installed page's source names {docdir}")

        # Exit codes as the man page lists them, and as the binary returns them.
        exits = page.split("\nEXIT STATUS\n", 1)[-1].split("\nENVIRONMENT\n", 1)[0]
        codes = re.findall(r"^ {7}(\d)\s", exits, re.M)
        # (exit 3, too many unparsable lines, is checked by check_bad_lines.py)
        check(codes[:3] == ["0", "1", "2"] and codes == [str(i) for i in range(len(codes))],
              f"exit codes listed: {codes}")
        check(run(ls, "version").returncode == 0, "exit 0 on success")
        check(run(ls, "analyze", os.path.join(tmp, "missing.log")).returncode == 1,
              "exit 1 on an unreadable input")
        check(run(ls, "analyze", "--no-such").returncode == 2, "exit 2 on a usage error")

        # Every example uses only options of its command.
        examples = page.split("\nEXAMPLES\n", 1)[-1]
        for line in re.findall(r"^\s+lockspan (\w+) (.*)$", examples, re.M):
            cmd, rest = line
            used = {t[2:] for t in rest.split() if re.match(r"--[\w-]+$", t)} | \
                {t for t in rest.split() if re.match(r"-\w$", t)}
            check(cmd in helps and used <= helps[cmd], f"example 'lockspan {cmd} {rest}'")

        # bash: the completion function itself, run as bash runs it.
        def bash_complete(*words):
            script = (f"source {paths['bash']}; COMP_WORDS=({' '.join(repr(w) for w in words)});"
                      f" COMP_CWORD={len(words) - 1}; _lockspan; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
            r = run("bash", "-c", f"cd {tmp} && {script}")
            return set(r.stdout.split()), r
        got, r = bash_complete("lockspan", "")
        check(set(cmds) <= got, f"bash completes the commands: {sorted(got)} {r.stderr}")
        for c in cmds:
            got, r = bash_complete("lockspan", c, "-")
            want = {("--" + n if not n.startswith("-") else n) for n in helps[c]}
            check(got == want, f"bash completion of {c} options: {sorted(got ^ want)} {r.stderr}")
        got, _ = bash_complete("lockspan", "report", "--format", "")
        check(got == {"md", "json", "html"}, f"bash completes --format values: {sorted(got)}")

        got, _ = bash_complete("lockspan", "analyze", "--lc-messages", "")
        check({"C", "de", "ja", "zh_CN"} <= got, f"bash completes --lc-messages: {sorted(got)}")
        got, _ = bash_complete("lockspan", "report", "--group-by", "")
        check("route" in got and "function" in got, f"bash completes --group-by: {sorted(got)}")
        zones = os.environ.get("TZDIR", "/usr/share/zoneinfo")
        if os.path.isfile(os.path.join(zones, "Europe", "Paris")):
            got, _ = bash_complete("lockspan", "report", "--tz", "Europe/Pa")
            check(got == {"Europe/Paris"}, f"bash completes --tz zones: {sorted(got)}")

        # zsh: each command's _arguments specs (and its syntax when zsh is here).
        text = open(os.path.join(tmp, paths["zsh"])).read()
        check(text.startswith("#compdef lockspan"), "zsh file starts with #compdef")
        for c in cmds:
            block = re.search(rf"^    {c}\)\n(.*?);;", text, re.M | re.S)
            names = set(re.findall(r"'\*--([\w-]+)\[", block.group(1))) | \
                {"-" + m for m in re.findall(r"'\*-(\w)\[", block.group(1))} if block else set()
            check(names == helps[c], f"zsh completion of {c}: {sorted(names ^ helps[c])}")
        if shutil.which("zsh"):
            r = run("zsh", "-n", os.path.join(tmp, paths["zsh"]))
            check(r.returncode == 0, f"zsh -n: {r.stderr}")

            # zsh: what TAB offers in an interactive zsh (zpty) that loads
            # the installed completion with compinit.
            helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zsh_complete.zsh")
            fdir = os.path.dirname(os.path.join(tmp, paths["zsh"]))

            def zsh_complete(typed):
                r = subprocess.run(["zsh", helper, fdir, typed], capture_output=True, text=True,
                                   timeout=60)
                return set(r.stdout.split()), r
            got, r = zsh_complete("lockspan ")
            check(got == set(cmds) | {"help", "version"},
                  f"zsh completes the commands: {sorted(got)} (exit {r.returncode})")
            for c in cmds:
                got, r = zsh_complete(f"lockspan {c} --")
                want = {"--" + n for n in helps[c] if not n.startswith("-")}
                check(got == want, f"zsh completion of {c} --: {sorted(got ^ want)} "
                      f"(exit {r.returncode})")
                got, r = zsh_complete(f"lockspan {c} -")
                want |= {n for n in helps[c] if n.startswith("-")}
                check(got == want, f"zsh completion of {c} -: {sorted(got ^ want)}")
            got, _ = zsh_complete("lockspan report --format ")
            check(got == {"md", "json", "html"}, f"zsh completes --format values: {sorted(got)}")
            got, _ = zsh_complete("lockspan analyze --lc-messages ")
            check({"C", "de", "ja", "zh_CN"} <= got, f"zsh completes --lc-messages: {sorted(got)}")
            if os.path.isfile(os.path.join(zones, "Europe", "Paris")):
                got, _ = zsh_complete("lockspan report --tz Europe/Pa")
                check(any("Paris" in g for g in got), f"zsh completes --tz zones: {sorted(got)}")
            got, _ = zsh_complete("lockspan analyze --gro")
            check(got == {"--group-by"}, f"zsh completes a prefix: {sorted(got)}")
            got, _ = zsh_complete("lockspan ingest --tz")
            check(got == set(), f"zsh offers no option of another command: {sorted(got)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
