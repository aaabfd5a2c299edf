#!/usr/bin/env bash
# scripts/check_deps.sh - the library's link-level layering, from its objects.
#
#   bash scripts/check_deps.sh BUILD_DIR        e.g. build/release
#   bash scripts/check_deps.sh -v BUILD_DIR     also print every edge
#
# Reads the object files of the library's targets (llog, and the object
# libraries llog_core and llog_format it is made of) under BUILD_DIR's
# CMakeFiles/ with nm: per object, the llog_* / llog__* symbols it defines
# and the ones it leaves undefined. An
# object A depends on B when A uses a symbol B defines. Lower layers never
# call up (liblog/README.md, "What depends on what"), so this graph has no
# cycle but the designed ones, listed in DESIGNED below with their reason.
# Any other strongly connected component fails the check (exit 1): it is
# printed with the symbols that make each of its edges. Two layer rules
# fail it too:
#   - the format unit (liblog/format/) uses no symbol defined outside it
#     (it is linked into llogcat, which has no core);
#   - the core (liblog/) uses no symbol of a backend (backends/) but the
#     edges listed in DESIGNED_DOWN (the backends sit on the core).
#
# Exit: 0 clean, 1 an undesigned cycle or a broken layer rule, 2 usage or
# no objects found. Needs nm (binutils) and python3.
set -euo pipefail

verbose=0
if [[ ${1:-} == -v ]]; then
	verbose=1
	shift
fi
if (($# != 1)) || [[ ! -d $1 ]]; then
	echo "usage: $0 [-v] BUILD_DIR" >&2
	exit 2
fi
build=$1

# The designed circles: one line each, "object object ...: reason". An
# undesigned component is one that is not exactly one of these sets.
DESIGNED=(
	"liblog/crash liblog/flusher liblog/flusher_drain: the crash handler has the flusher drain (llog__flusher_crash_drain*, flusher_drain.c), which renders with the rounds' helpers (flusher.c); the flusher asks whether a crash is in progress before it frees an arena, and takes the crash handler's signal mask for its threads and the sinks' (llog__crash_block_mask) (crash.c, flusher.h opening comments)"
)
# The core's designed uses of a backend: "from to: reason".
DESIGNED_DOWN=(
	"liblog/control backends/console: llog_init's fallback sink, a console sink on stderr when none was added (control.c make_flusher)"
)

mapfile -t objs < <(find "$build" -path '*/CMakeFiles/llog.dir/*.o' -o \
	-path '*/CMakeFiles/llog_core.dir/*.o' -o -path '*/CMakeFiles/llog_format.dir/*.o' | sort)
if ((${#objs[@]} == 0)); then
	echo "$0: no objects of llog under $build (build it first)" >&2
	exit 2
fi

# One line per symbol: "D|U <object> <symbol>"; the object named by its
# source path without ".c" (liblog/arena, liblog/format/line, backends/file).
# An object whose source is gone (moved or removed since that build
# directory last built it) is left out. One nm and one awk for all the
# objects (a process each per object cost seconds).
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
present=()
for o in "${objs[@]}"; do
	name=${o#*.dir/}
	[[ -f $src/${name%.o} ]] && present+=("$o")
done
symbols() { # KIND (D or U) NM-OPTION: "file.o: symbol type ..." -> "KIND object symbol"
	nm -P -A "$2" "${present[@]}" | awk -v k="$1" '{
		n = $1; sub(/:$/, "", n); sub(/^.*\.dir\//, "", n); sub(/\.c\.o$/, "", n)
		if ($2 ~ /^llog_/ && (k == "U" || $3 != "U")) print k, n, $2
	}'
}
{
	symbols D --defined-only
	symbols U --undefined-only
} | python3 -c '
import sys

verbose = sys.argv[1] == "1"
ncycles = int(sys.argv[2])
designed, designed_down = {}, {}
for k, line in enumerate(sys.argv[3:]):
    objs, reason = line.split(":", 1)
    if k < ncycles:
        designed[frozenset(objs.split())] = reason.strip()
    else:
        designed_down[tuple(objs.split())] = reason.strip()

defs, uses, nodes = {}, [], set()
for line in sys.stdin:
    kind, obj, sym = line.split()
    nodes.add(obj)
    if kind == "D":
        defs[sym] = obj
    else:
        uses.append((obj, sym))

edges = {}  # (a, b) -> symbols
for obj, sym in uses:
    d = defs.get(sym)
    if d is not None and d != obj:
        edges.setdefault((obj, d), set()).add(sym)
succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}

# Tarjan, iterative.
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
for root in sorted(nodes):
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
        if i < len(succ[v]):
            work.append((v, i + 1))
            w = succ[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            sccs.append(sorted(comp))
        if work:
            u = work[-1][0]
            low[u] = min(low[u], low[v])

if verbose:
    for (a, b), syms in sorted(edges.items()):
        print("%s -> %s: %s" % (a, b, " ".join(sorted(syms))))

bad = 0
for comp in sccs:
    if len(comp) < 2:
        continue
    key = frozenset(comp)
    if key in designed:
        print("designed cycle: %s (%s)" % (" ".join(comp), designed[key]))
        continue
    bad = 1
    print("UNDESIGNED CYCLE: %s" % " ".join(comp))
    for (a, b), syms in sorted(edges.items()):
        if a in key and b in key:
            print("  %s -> %s: %s" % (a, b, " ".join(sorted(syms))))

fmt = "liblog/format/"
for (a, b), syms in sorted(edges.items()):
    if a.startswith("liblog/") and b.startswith("backends/"):
        if (a, b) in designed_down:
            print("designed edge: %s -> %s (%s)" % (a, b, designed_down[(a, b)]))
        else:
            bad = 1
            print("CORE CALLS A BACKEND: %s -> %s: %s" % (a, b, " ".join(sorted(syms))))
for (a, b), syms in sorted(edges.items()):
    if a.startswith(fmt) and not b.startswith(fmt):
        bad = 1
        print("FORMAT UNIT CALLS OUT: %s -> %s: %s" % (a, b, " ".join(sorted(syms))))
# A format object that uses an llog symbol nobody defines would need a
# stub to link llogcat: the same failure.
for obj, sym in uses:
    if obj.startswith(fmt) and sym not in defs:
        bad = 1
        print("FORMAT UNIT USES AN UNDEFINED SYMBOL: %s: %s" % (obj, sym))

print("%d objects, %d edges, %s" % (len(nodes), len(edges),
      "FAILED" if bad else "no cycle but the designed ones"))
sys.exit(bad)
' "$verbose" "${#DESIGNED[@]}" "${DESIGNED[@]}" "${DESIGNED_DOWN[@]}"
