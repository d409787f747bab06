#!/usr/bin/env bash
# Checks the manual pages of docs/man: every page renders without a man or
# groff warning, every .so link names an existing page, and man3 matches
# include/mpi_notify.h: a page (or link) per declared MPI_/PMPI_/MPINOTIFY_ function,
# none for a function that does not exist, and each function's prototype
# in the synopsis of the page its name leads to, as the header declares it.
# Usage: check-man-pages.sh [ROOT]   (ROOT: the source tree; default: this one)
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
header=$root/include/mpi_notify.h
failures=0
fail() {
  echo "man-pages: FAIL: $*"
  failures=$((failures + 1))
}

if ! command -v man >/dev/null; then
  echo "man-pages: FAIL: man not found (man-db and groff-base; scripts/setup.sh installs them)"
  exit 1
fi
# .so requests resolve against the working directory, as under a man tree.
cd "$root/docs/man" || exit 1

# The first line of a link page is ".so man3/NAME.3"; prints the target.
link_target() { sed -n '1s/^\.so[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$1"; }
# Font escapes out, whitespace collapsed, none inside parentheses or before
# commas: the form in which a page's prototype and the header's compare.
normalize() {
  sed -e 's/\\f\(\[[^]]*\]\|(..\|.\)//g' -e 's/\\-/-/g' | tr -s '[:space:]' ' ' |
    sed -e 's/( /(/g' -e 's/ )/)/g' -e 's/ ,/,/g' -e 's/^ //' -e 's/ $//'
}
# One "NAME<tab>int NAME(parameters)" line per function in the text on stdin.
prototypes() {
  grep -o 'int \(P\{0,1\}MPI\|MPINOTIFY\)_[A-Za-z0-9_]* *([^()]*)' |
    sed 's/^int \([A-Za-z0-9_]*\) */\1\tint \1/'
}

mapfile -t pages < <(find man1 man3 man7 -type f 2>/dev/null | LC_ALL=C sort)
[ ${#pages[@]} -gt 0 ] || fail "no pages under $root/docs/man"

# 1. Rendering: man exits 0 even when groff warns, so stderr decides.
# MAN_DISABLE_SECCOMP: man-db's sandbox fails in some containers.
# CHECK_MAN_PAGES_RENDER=no skips it (the check's self-test, for the
# breakages that rendering does not concern).
rendered=0
[ "${CHECK_MAN_PAGES_RENDER:-yes}" = no ] && pages_to_render=() || pages_to_render=("${pages[@]}")
for page in "${pages_to_render[@]}"; do
  case $page in
    man1/*.1 | man3/*.3 | man7/*.7) ;;
    *) fail "$page: not a page of its section directory" && continue ;;
  esac
  out=$(MANWIDTH=80 LC_ALL=C.UTF-8 MAN_DISABLE_SECCOMP=1 \
    man --warnings=w -E UTF-8 -l "$page" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 0 ] || [ -n "$out" ]; then
    fail "$page: man exited $rc${out:+ and said:}"
    [ -n "$out" ] && printf '    %s\n' "${out//$'\n'/$'\n'    }"
  fi
  rendered=$((rendered + 1))
done

# 2. Links, and the title of every real page is its file name.
declare -A resolves=()  # man3 file name -> the page its text is in
links=0
for page in "${pages[@]}"; do
  name=$(basename "$page")
  name=${name%.*}
  if grep -q '^\.so' "$page"; then
    links=$((links + 1))
    target=$(link_target "$page")
    if [ "$(wc -l <"$page")" -ne 1 ] || [ -z "$target" ]; then
      fail "$page: a link page must be the one line '.so manN/PAGE.N'"
    elif [ ! -f "$target" ]; then
      fail "$page: links to $target, which does not exist"
    elif grep -q '^\.so' "$target"; then
      fail "$page: links to $target, itself a link"
    else
      resolves[$name]=$target
    fi
  else
    title=$(sed -n 's/^\.TH[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$page" | head -n 1)
    title=${title//\\-/-}
    [ "$title" = "$name" ] || fail "$page: .TH names '$title', not '$name'"
    resolves[$name]=$page
  fi
done

# 3. The header's functions: MPINOTIFY_DECLARE_PAIR(name, (params)) gives
# MPI_name and PMPI_name; a plain "int MPI_x(...);" or "int
# MPINOTIFY_x(...);" (the library's own functions) counts as well (the
# macro's own "int MPI_##name params" matches neither).
[ -f "$header" ] || { fail "$header not found"; exit 1; }
declared=$(tr '\n' ' ' <"$header" | sed 's:/\*[^*]*\*\{1,\}\([^/*][^*]*\*\{1,\}\)*/::g' |
  sed 's/MPINOTIFY_DECLARE_PAIR(/\n&/g' | {
    while IFS= read -r chunk || [ -n "$chunk" ]; do
      if [[ $chunk =~ ^MPINOTIFY_DECLARE_PAIR\([[:space:]]*([A-Za-z0-9_]+)[[:space:]]*,[[:space:]]*\(([^\(\)]*)\)\) ]]; then
        printf 'int MPI_%s(%s)\nint PMPI_%s(%s)\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" \
          "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
      fi
      grep -o 'int \(P\{0,1\}MPI\|MPINOTIFY\)_[A-Za-z0-9_]* *([^()]*)' <<<"$chunk" || true
    done
  } | while IFS= read -r line; do normalize <<<"$line"; echo; done | prototypes | LC_ALL=C sort -u)
[ -n "$declared" ] || fail "no function declarations found in $header"
declare -A header_proto=()
while IFS=$'\t' read -r fn proto; do header_proto[$fn]=$proto; done <<<"$declared"

# What each real man3 page's SYNOPSIS declares.
declare -A page_proto=() page_of=()
for page in "${pages[@]}"; do
  if [[ $page != man3/* ]] || grep -q '^\.so' "$page"; then continue; fi
  synopsis=$(awk '/^\.SH/ { on = ($2 == "SYNOPSIS") ; next } on && !/^\./' "$page" | normalize)
  while IFS=$'\t' read -r fn proto; do
    [ -n "$fn" ] || continue
    page_proto[$fn]=$proto
    page_of[$fn]=$page
  done < <(prototypes <<<"$synopsis")
done

for fn in $(printf '%s\n' "${!header_proto[@]}" | LC_ALL=C sort); do
  page=${resolves[$fn]:-}
  if [ -z "$page" ]; then
    [ -e "man3/$fn.3" ] || fail "$fn is declared in mpi_notify.h but has no page man3/$fn.3"
  elif [ "${page_of[$fn]:-}" != "$page" ]; then
    fail "$fn: man3/$fn.3 leads to $page, whose synopsis does not declare it"
  elif [ "${page_proto[$fn]}" != "${header_proto[$fn]}" ]; then
    fail "$fn: the synopsis of $page differs from mpi_notify.h"
    echo "    page:   ${page_proto[$fn]}"
    echo "    header: ${header_proto[$fn]}"
  fi
done
for page in "${pages[@]}"; do
  [[ $page == man3/* ]] || continue
  name=$(basename "$page" .3)
  [ -n "${header_proto[$name]:-}" ] || fail "$page documents $name, which mpi_notify.h does not declare"
done
for fn in "${!page_of[@]}"; do
  [ -n "${header_proto[$fn]:-}" ] || fail "${page_of[$fn]}: its synopsis declares $fn, which mpi_notify.h does not"
done

if [ $failures -ne 0 ]; then
  echo "man-pages: $failures failure(s)"
  exit 1
fi
echo "man-pages: ${rendered} pages rendered without warnings (${links} links);" \
  "${#header_proto[@]} functions of mpi_notify.h documented as declared"
