#!/usr/bin/env zsh
# What zsh offers when TAB is pressed after a command line, with the
# completion functions of FPATH_DIR: an interactive zsh in a pseudo-terminal
# (zsh/zpty) runs compinit, and compadd is wrapped to print each match it
# is given (after zsh's own matching against what was typed), one per line
# as "match:WORD". Nothing is run: Return is unbound.
#
# Usage: zsh_complete.zsh FPATH_DIR 'lockspan analyze --'
# Prints the matches; exit 2 if the inner shell did not start.
emulate -L zsh
zmodload zsh/zpty || exit 2
local dir=$1 typed=$2 line out=
integer started=0 done=0

zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; fpath=(${(q)dir} \$fpath)"
zpty -w z 'autoload -Uz compinit && compinit -u -D'
zpty -w z 'zstyle ":completion:*" insert-tab false'
# Every match compadd is asked to add, as zsh matches it against the word
# typed (-O: collect, do not add); compadd calls that only collect or
# describe (-O, -A, -D) are the completion system's own and pass through.
zpty -w z 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __m; builtin compadd -O __m "$@"; local __w
  for __w in $__m; do print -r -- "match:$__w"; done
  builtin compadd "$@"
}'
zpty -w z 'comppostfuncs=(__lsdone); __lsdone() { print -r -- "lockspan-completion-done"; exit }'
# Last: once Return is unbound no line runs.
zpty -w z 'bindkey "^I" complete-word; print -r -- lockspan-completion-ready;'\
' bindkey "^M" undefined-key; bindkey "^J" undefined-key'
# Wait for the shell, then type the line and TAB.
repeat 200; do
    zpty -r -t z line || { sleep 0.05; continue; }
    [[ $line == *lockspan-completion-ready* && $line != *print* ]] && { started=1; break; }
done
(( started )) || { zpty -d z; exit 2; }
zpty -w -n z "$typed"$'\t'
repeat 400; do
    if ! zpty -r -t z line; then sleep 0.05; continue; fi
    [[ $line == *lockspan-completion-done* ]] && { done=1; break; }
    # (a line may begin with the terminal's own escape sequences)
    [[ $line == *match:* ]] && print -r -- "${${line##*match:}%%$'\r'*}"
done
zpty -d z
(( done )) || exit 3
