#!/bin/bash
# check_layers.sh [--map] BUILD-DIR SOURCE-DIR LIBRARY...
#
# The layers of each LIBRARY (src/LIBRARY), from its compiled objects (the
# relocations of each object name what it calls) and its #include lines:
#
# 1. No object of the library refers to a name the library exports
#    (LIBRARY.exports): inside the library, a call goes to the logic or to
#    libc_<name>(), never back through an exported libc name, which the
#    dynamic linker may bind to another library or to the program.
# 2. A subdirectory of src/LIBRARY is a room (socket_wrapper: capture/,
#    faults/), entered through one header, its entry header (ROOMS below).
#    The core (the files at the top) calls a room only through the
#    functions its entry header declares, and includes no other header of
#    the room. A room calls nothing of another room, and of the core only
#    the functions its entry header lists after "May call of the core:"
#    (none if it has no such list); the generated libc layer
#    (*_libc.c: libc_<name>()) and src/common are below every room. A
#    room's files include no core header, except its entry header, which
#    may include the core's internal header for the record types.
# 3. Files of different rooms do not call each other in a circle, except
#    through the functions a room's entry header lists (the contract).
#    In a library without rooms (all but socket_wrapper), every file is a
#    layer of its own: no two files call each other, directly or through
#    others (a circle is named with the calls that close it).
#
# --map prints, per file, what it defines and which files' functions it
# calls, and for a library without rooms its files by layer, then checks.
# Exits 1 on any violation, with one line each.
set -eu

map=false
if [ "${1:-}" = --map ]; then
	map=true
	shift
fi
build=$1
src=$2
shift 2

# library room entry-header (relative to src/LIBRARY)
ROOMS="
socket_wrapper capture capture/swrap_pcap.h
socket_wrapper faults faults/swrap_faults.h
"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# file<TAB>object for every object of LIBRARY (shared library and logic)
objects() {
	local lib=$1 t d
	for t in "$lib" "${lib}_logic"; do
		d=$build/src/$lib/CMakeFiles/$t.dir
		[ -d "$d" ] || continue
		find "$d" -name '*.o' | sort | while read -r o; do
			f=${o#"$d"/}
			f=${f%.o}
			case $f in __/*) f=../${f#__/} ;; esac
			# (an object left by a source that moved or went)
			[ -e "$src/src/$lib/$f" ] || continue
			printf '%s\t%s\n' "$f" "$o"
		done
	done
}

room_of() { # file -> room name, "core" or "libc"
	case $1 in
	../*) echo common ;;
	*/*) echo "${1%%/*}" ;;
	*_libc.c) echo libc ;;
	*) echo core ;;
	esac
}

# Circles among the files of `calls` (file<TAB>symbol<TAB>defining file;
# the libc layer and src/common are below every file): one line for each
# set of files that reach each other, with the shortest circle through the
# first of them. (The closure is cubic in the number of files, a few
# dozen.)
file_circles() {
	awk -F '\t' -v lib="$1" '
	function unit(f) { return f ~ /^\.\.\// || f ~ /_libc\.c$/ ? "" : f }
	{
		a = unit($1); b = unit($3)
		if (a == "" || b == "" || a == b) next
		if (!(a in id)) { id[a] = ++n; nm[n] = a }
		if (!(b in id)) { id[b] = ++n; nm[n] = b }
		if (!((id[a], id[b]) in e)) e[id[a], id[b]] = $2
		r[id[a], id[b]] = 1
	}
	END {
		for (k = 1; k <= n; k++)
			for (i = 1; i <= n; i++)
				if ((i, k) in r)
					for (j = 1; j <= n; j++)
						if ((k, j) in r) r[i, j] = 1
		for (i = 1; i <= n; i++) {
			if ((i in done) || !((i, i) in r)) continue
			set = nm[i]
			for (j = i + 1; j <= n; j++)
				if ((i, j) in r && (j, i) in r) {
					done[j] = 1
					set = set " " nm[j]
				}
			# breadth first from i, back to i
			split("", prev); split("", q)
			head = 1; tail = 0; last = 0
			for (j = 1; j <= n; j++)
				if ((i, j) in e && (j, i) in r) { prev[j] = i; q[++tail] = j }
			while (head <= tail) {
				x = q[head++]
				if ((x, i) in e) { last = x; break }
				for (j = 1; j <= n; j++)
					if ((x, j) in e && !(j in prev) && (j, i) in r) {
						prev[j] = x; q[++tail] = j
					}
			}
			k = 0
			for (x = last; x != i; x = prev[x]) path[++k] = x
			way = nm[i]; from = i
			for (m = k; m >= 1; m--) {
				way = way (m == k ? " calls " : ", which calls ") \
				    e[from, path[m]] "() of " nm[path[m]]
				from = path[m]
			}
			way = way ", which calls " e[from, i] "() of " nm[i]
			print "FAIL: " lib ": files call each other in a circle (" \
			    set "): " way
		}
	}' "$2"
}

# For --map: the files of `calls` by layer, top-down: a file's layer is
# one above the highest file it calls (the libc layer and src/common
# aside), so each line calls only lines below it. Meaningless while files
# call each other in a circle (file_circles says so).
file_layers() {
	awk -F '\t' '
	function unit(f) { return f ~ /^\.\.\// || f ~ /_libc\.c$/ ? "" : f }
	NR == FNR { if (unit($1) != "") { fl[++nf] = $1; lv[$1] = 0 } next }
	{
		a = unit($1); b = unit($3)
		if (a != "" && b != "" && a != b) { ea[++m] = a; eb[m] = b }
	}
	END {
		for (it = 0; it <= nf; it++)
			for (k = 1; k <= m; k++)
				if (lv[ea[k]] < lv[eb[k]] + 1) lv[ea[k]] = lv[eb[k]] + 1
		top = 0
		for (i = 1; i <= nf; i++) if (lv[fl[i]] > top) top = lv[fl[i]]
		for (l = top; l >= 0; l--) {
			line = ""
			for (i = 1; i <= nf; i++)
				if (lv[fl[i]] == l) line = line " " fl[i]
			if (line != "") print "  layer " l ":" line
		}
	}' "$1" "$2"
}

# The function names a header lists after "May call of the core:" (up to
# the end of that comment paragraph).
allowed_of() {
	awk '/May call of the core:/ { on = 1; next }
	     on && /^ \*\/|^ \*$/ { exit }
	     on { while (match($0, /[a-z]+_[a-z0-9_]*\(\)/)) {
		     print substr($0, RSTART, RLENGTH - 2)
		     $0 = substr($0, RSTART + RLENGTH) } }' "$1"
}

# The functions a header declares (names followed by "(" at the start of a
# declaration, or of a continuation of one).
declared_of() {
	sed -e 's|/\*.*\*/||' -e '/^ *\*/d' -e '/^\/\*/d' "$1" |
		grep -o '\b[a-z_][a-z0-9_]*(' | tr -d '(' | sort -u
}

for lib in "$@"; do
	start=$fail
	dir=$src/src/$lib
	objects "$lib" > "$tmp/objs"
	if [ ! -s "$tmp/objs" ]; then
		echo "FAIL: $lib: no objects under $build/src/$lib"
		fail=$((fail + 1))
		continue
	fi
	: > "$tmp/defs"
	: > "$tmp/refs"
	while IFS=$'\t' read -r f o; do
		nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3 "\t" f }' >> "$tmp/defs"
		objdump -r "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^R_/ {
			s = $3; sub(/[-+]0x.*/, "", s)
			if (s !~ /^\./) print f "\t" s }' | sort -u >> "$tmp/refs"
	done < "$tmp/objs"
	# (a symbol every object defines, as i386's __x86.get_pc_thunk.*,
	# belongs to none)
	sort -u "$tmp/defs" | awk -F '\t' '{ n[$1]++; l[NR] = $0; s[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if (n[s[i]] == 1) print l[i] }' > "$tmp/defs.1"
	mv "$tmp/defs.1" "$tmp/defs"
	sed -e 's/#.*//' "$dir/$lib.exports" | awk 'NF { print $1 }' | sort -u > "$tmp/exports"

	# file<TAB>symbol<TAB>defining file, for calls between files
	sort -t "$(printf '\t')" -k2,2 "$tmp/refs" |
		join -t "$(printf '\t')" -1 2 -2 1 -o 1.1,1.2,2.2 - "$tmp/defs" |
		awk -F '\t' '$1 != $3' | sort -u > "$tmp/calls"

	if $map; then
		echo "== $lib"
		cut -f1 "$tmp/objs" | while read -r f; do
			echo "$f [$(room_of "$f")]"
			echo "  defines: $(awk -F '\t' -v f="$f" '$2 == f { print $1 }' "$tmp/defs" | tr '\n' ' ')"
			awk -F '\t' -v f="$f" '$1 == f { print $3 "\t" $2 }' "$tmp/calls" |
				awk -F '\t' '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "  calls " k ":" a[k] }' | sort
		done
	fi

	# 1. exported names called from inside
	awk -F '\t' -v lib="$lib" 'NR == FNR { e[$1] = 1; next }
		($2 in e) { print "FAIL: " lib ": " $1 " calls the exported " $2 \
			"() (use libc_" $2 "() or the logic)" }' \
		"$tmp/exports" "$tmp/refs" > "$tmp/out"

	# 2. rooms: calls
	printf '%s\n' "$ROOMS" | awk -v l="$lib" '$1 == l { print $2 "\t" $3 }' > "$tmp/rooms"
	if [ ! -s "$tmp/rooms" ]; then
		# 3. every file a layer
		file_circles "$lib" "$tmp/calls" >> "$tmp/out"
		if $map; then
			echo "== $lib: layers, top-down (each calls only those below)"
			file_layers "$tmp/objs" "$tmp/calls"
		fi
		if [ -s "$tmp/out" ]; then
			cat "$tmp/out"
			fail=$((fail + 1))
		fi
		[ $fail -ne $start ] || echo "ok: $lib: $(wc -l < "$tmp/objs") objects, no exported name called inside, no circle of files"
		continue
	fi
	while IFS=$'\t' read -r room hdr; do
		allowed_of "$dir/$hdr" | sort -u > "$tmp/allowed.$room"
		declared_of "$dir/$hdr" > "$tmp/entry.$room"
		if [ ! -d "$dir/$room" ]; then
			echo "FAIL: $lib: room $room/ is missing"
			fail=$((fail + 1))
		fi
	done < "$tmp/rooms"
	for r in $(cut -f1 "$tmp/rooms"); do
		sed "s/^/$r\tallowed\t/" "$tmp/allowed.$r"
		sed "s/^/$r\tentry\t/" "$tmp/entry.$r"
	done > "$tmp/lists"
	awk -F '\t' -v lib="$lib" '
	function room(f) {
		if (f ~ /^\.\.\//) return "common"
		if (f ~ /\//) { sub(/\/.*/, "", f); return f }
		if (f ~ /_libc\.c$/) return "libc"
		return "core"
	}
	NR == FNR { list[$1, $2, $3] = 1; next }
	{
		f = $1; s = $2; d = $3; fr = room(f); dr = room(d)
		if (fr == dr || dr == "libc" || dr == "common") next
		if (fr == "core" || fr == "libc" || fr == "common") {
			# into a room: only what its entry header declares
			if (!((dr, "entry", s) in list))
				print "FAIL: " lib ": " f " calls " s "() of " d \
				    ", which " dr "/\047s entry header does not declare"
			edge[fr == "core" ? "core" : fr, dr] = 1
		} else if (dr == "core") {
			if (!((fr, "allowed", s) in list)) {
				print "FAIL: " lib ": " f " (" fr "/) calls " s \
				    "() of the core (" d "), not in the list its entry header gives"
				edge[fr, dr] = 1
			}
		} else {
			print "FAIL: " lib ": " f " (" fr "/) calls " s \
			    "() of another room (" d ")"
			edge[fr, dr] = 1
		}
	}
	END {
		# 3. circles between rooms, other than through the contracts
		for (k in edge) {
			split(k, p, SUBSEP)
			if ((p[2], p[1]) in edge && p[1] < p[2])
				print "FAIL: " lib ": rooms " p[1] " and " p[2] \
				    " call each other"
		}
	}' "$tmp/lists" "$tmp/calls" >> "$tmp/out"

	# 2. rooms: includes (quoted ones, resolved as the compiler does:
	# beside the file, then src/LIBRARY)
	(cd "$dir" && find . -name '*.[ch]' | sed 's|^\./||' | sort) | while read -r f; do
		fr=$(room_of "$f")
		[ "$fr" = libc ] && fr=core
		grep -o '^#include "[^"]*"' "$dir/$f" | sed 's/^#include "//;s/"$//' | while read -r inc; do
			here=$(dirname "$f")
			if [ -e "$dir/$here/$inc" ]; then
				t=$(realpath -m --relative-to="$dir" "$dir/$here/$inc")
			elif [ -e "$dir/$inc" ]; then
				t=$inc
			else
				continue # src/common, generated, system
			fi
			tr=$(room_of "$t")
			case $tr in libc | common) continue ;; esac
			[ "$fr" != "$tr" ] || continue
			case $t in *_libc.h | *_libc.def) continue ;; esac
			hdr=$(awk -F '\t' -v r="$tr" '$1 == r { print $2 }' "$tmp/rooms")
			if [ "$tr" != core ]; then
				if [ "$t" != "$hdr" ]; then
					echo "FAIL: $lib: $f includes $t, not $tr/'s entry header $hdr"
				fi
			elif [ "$fr" != core ]; then
				own=$(awk -F '\t' -v r="$fr" '$1 == r { print $2 }' "$tmp/rooms")
				if [ "$f" != "$own" ]; then
					echo "FAIL: $lib: $f includes the core's $t (only $own may)"
				fi
			fi
		done
	done >> "$tmp/out"
	if [ -s "$tmp/out" ]; then
		cat "$tmp/out"
		fail=$((fail + 1))
	fi

	[ $fail -ne $start ] || echo "ok: $lib: $(wc -l < "$tmp/objs") objects, no exported name called inside, rooms $(cut -f1 "$tmp/rooms" | tr '\n' ' ')entered through their headers"
done
[ $fail -eq 0 ]
