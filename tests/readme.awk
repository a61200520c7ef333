# README examples (run by tests/readme.sh): reads README.md, runs the commands of every fenced
# block that holds a "$ ..." line running ./roofcost, and compares what each prints with the lines shown
# under it (mode=check), or prints README.md with the real output in place (mode=rewrite).
#
# In an example block:
#   $ COMMAND     runs COMMAND with sh (stdout and stderr); the lines after it, up to the next
#                 "$ " line or the end of the block, are what it prints
#   ...           a line of its own: any number of lines (none included) left out here
#   TEXT ...      a line shown up to its first words: the real line starts with TEXT
# Everything else must match exactly, numbers included. The temporary home prints as ~.
#
# rewrite keeps the shape of each block: the shown lines are found in the new output by their
# text with the numbers masked, and replaced by the new lines; "..." stays where it was. When a
# block's lines are no longer found (its text changed), the block is filled with the head and
# the tail of the new output and a warning names the command.

function rtrim(s) { sub(/[ \t]+$/, "", s); return s }

# The line with every number masked and runs of blanks as one: what stays when figures move.
function shape(s) {
	gsub(/[0-9][0-9.,]*/, "#", s)
	gsub(/[ \t]+/, " ", s)
	return s
}

function first_word(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t].*$/, "", s)
	return s
}

function nwords(s,    n, t) {
	t = s
	n = 0
	sub(/^[ \t]+/, "", t)
	while (t != "") {
		n++
		sub(/^[^ \t]+[ \t]*/, "", t)
	}
	return n
}

# The first n words of s, its spacing kept.
function head_words(s, n,    out, lead, word) {
	out = ""
	while (n > 0 && s != "") {
		match(s, /^[ \t]*/)
		lead = substr(s, 1, RLENGTH)
		s = substr(s, RLENGTH + 1)
		match(s, /^[^ \t]+/)
		word = substr(s, 1, RLENGTH)
		s = substr(s, RLENGTH + 1)
		out = out lead word
		n--
	}
	return out
}

# kind of pattern line p: "star", "prefix" (its text in PFX) or "line".
function kind(p) {
	if (p == "...")
		return "star"
	if (length(p) > 4 && substr(p, length(p) - 3) == " ...")
		return "prefix"
	return "line"
}

function prefix_text(p) { return substr(p, 1, length(p) - 4) }

# 1 if pattern line p matches real line a exactly (its prefix for "TEXT ...").
function exact(p, a,    k) {
	k = kind(p)
	if (k == "prefix")
		return index(a, prefix_text(p)) == 1
	return p == a
}

# How well p fits a when numbers may have moved: 3 exact, 2 the same shape and first word,
# 1 the same shape, 0 not at all.
function fit(p, a,    k, t, b) {
	if (exact(p, a))
		return 3
	k = kind(p)
	t = p
	b = a
	if (k == "prefix") {
		t = prefix_text(p)
		b = head_words(a, nwords(t))
	}
	if (shape(t) != shape(b))
		return 0
	return first_word(t) == first_word(b) ? 2 : 1
}

# Runs cmd, its output into OUT[1..NOUT], the home shown as ~.
function run(cmd,    line, full, i) {
	NOUT = 0
	# Another build of the same tool (make asan's) runs the examples when ROOFCOST names it.
	if (ENVIRON["ROOFCOST"] != "")
		gsub(/\.\/roofcost/, ENVIRON["ROOFCOST"], cmd)
	# A newline ends a comment at the end of cmd.
	full = "(" cmd "\n) 2>&1"
	while ((full | getline line) > 0) {
		while ((i = index(line, home)) > 0)
			line = substr(line, 1, i - 1) "~" substr(line, i + length(home))
		OUT[++NOUT] = rtrim(line)
	}
	close(full)
}

# Check: PAT[1..NPAT] against OUT[1..NOUT] as a glob over lines. Returns 1 if it matches.
function glob_match(    i, j, k) {
	delete M
	M[0, 0] = 1
	for (j = 1; j <= NOUT; j++)
		M[0, j] = 0
	for (i = 1; i <= NPAT; i++) {
		k = kind(PAT[i])
		M[i, 0] = (k == "star") ? M[i - 1, 0] : 0
		for (j = 1; j <= NOUT; j++) {
			if (k == "star")
				M[i, j] = M[i - 1, j] || M[i, j - 1]
			else
				M[i, j] = M[i - 1, j - 1] && exact(PAT[i], OUT[j])
		}
	}
	return M[NPAT, NOUT]
}

# Rewrite: the best alignment of PAT to OUT by fit(); NEWP[1..NPAT] the new lines. Returns 0
# when no alignment exists.
function realign(    i, j, k, f, best, NEG) {
	NEG = -1000000
	delete S
	S[0, 0] = 0
	for (j = 1; j <= NOUT; j++)
		S[0, j] = NEG
	for (i = 1; i <= NPAT; i++) {
		k = kind(PAT[i])
		S[i, 0] = (k == "star") ? S[i - 1, 0] : NEG
		for (j = 1; j <= NOUT; j++) {
			if (k == "star") {
				best = S[i - 1, j]
				if (S[i, j - 1] > best)
					best = S[i, j - 1]
				S[i, j] = best
			} else {
				f = fit(PAT[i], OUT[j])
				S[i, j] = (f > 0 && S[i - 1, j - 1] > NEG) ? S[i - 1, j - 1] + f : NEG
			}
		}
	}
	if (S[NPAT, NOUT] <= NEG)
		return 0
	i = NPAT
	j = NOUT
	while (i > 0) {
		k = kind(PAT[i])
		if (k == "star") {
			NEWP[i] = "..."
			if (j > 0 && S[i, j - 1] == S[i, j])
				j--
			else
				i--
			continue
		}
		if (k == "prefix")
			NEWP[i] = head_words(OUT[j], nwords(prefix_text(PAT[i]))) " ..."
		else
			NEWP[i] = OUT[j]
		i--
		j--
	}
	return 1
}

# Rewrite fallback: the first lines and the last ones, as many as were shown around "...".
function fallback(cmd,    i, h, t, stars) {
	h = 0
	t = 0
	stars = 0
	for (i = 1; i <= NPAT; i++) {
		if (kind(PAT[i]) == "star") {
			stars++
			t = 0
		} else if (stars == 0) {
			h++
		} else {
			t++
		}
	}
	if (h == 0)
		h = 1
	printf("readme: '%s': its shown lines are not in the output any more; the block now holds the first %d%s\n",
	       cmd, h, stars ? " and last " t " lines" : " lines") > "/dev/stderr"
	NNEW = 0
	if (!stars || NOUT <= h + t) {
		for (i = 1; i <= NOUT; i++)
			NEW[++NNEW] = OUT[i]
		return
	}
	for (i = 1; i <= h; i++)
		NEW[++NNEW] = OUT[i]
	NEW[++NNEW] = "..."
	for (i = NOUT - t + 1; i <= NOUT; i++)
		NEW[++NNEW] = OUT[i]
}

# One command of a block (README line CMD_LINE) with its shown lines PAT[1..NPAT]: checked or
# rewritten.
function command(cmd,    i, j) {
	ncmd++
	run(substr(cmd, 3))
	if (mode == "check") {
		if (!glob_match()) {
			failed++
			printf("FAIL readme: '%s' (README.md line %d) prints otherwise:\n", substr(cmd, 3), CMD_LINE) > "/dev/stderr"
			for (i = 1; i <= NPAT; i++) {
				for (j = 1; j <= NOUT && !exact(PAT[i], OUT[j]); j++)
					;
				if (kind(PAT[i]) != "star" && j > NOUT)
					printf("    shown, not printed: %s\n", PAT[i]) > "/dev/stderr"
			}
			for (j = 1; j <= NOUT && j <= 12; j++)
				printf("    printed: %s\n", OUT[j]) > "/dev/stderr"
		}
		return
	}
	print cmd
	if (NPAT == 0) {
		for (i = 1; i <= NOUT; i++)
			print OUT[i]
		return
	}
	if (realign()) {
		for (i = 1; i <= NPAT; i++)
			print NEWP[i]
		return
	}
	fallback(substr(cmd, 3))
	for (i = 1; i <= NNEW; i++)
		print NEW[i]
}

# A whole fenced block in BLK[1..NBLK] (fences excluded).
function block(    i, is_example, cmd, at) {
	is_example = 0
	for (i = 1; i <= NBLK; i++)
		if (index(BLK[i], "$ ") == 1 && index(BLK[i], "./roofcost") > 0)
			is_example = 1
	if (!is_example) {
		if (mode == "rewrite")
			for (i = 1; i <= NBLK; i++)
				print BLK[i]
		return
	}
	cmd = ""
	NPAT = 0
	for (i = 1; i <= NBLK; i++) {
		if (index(BLK[i], "$ ") == 1) {
			if (cmd != "") {
				CMD_LINE = at
				command(cmd)
			}
			cmd = BLK[i]
			at = BLK_LINE[i]
			NPAT = 0
			continue
		}
		if (cmd == "") {
			if (mode == "rewrite")
				print BLK[i]
			continue
		}
		PAT[++NPAT] = rtrim(BLK[i])
	}
	if (cmd != "") {
		CMD_LINE = at
		command(cmd)
	}
}

BEGIN { fence = 0; failed = 0; ncmd = 0 }

{
	if (index($0, "```") == 1) {
		if (fence) {
			block()
			fence = 0
		} else {
			fence = 1
			NBLK = 0
		}
		if (mode == "rewrite")
			print
		next
	}
	if (fence) {
		BLK[++NBLK] = $0
		BLK_LINE[NBLK] = NR
		next
	}
	if (mode == "rewrite")
		print
}

END {
	if (mode == "check") {
		printf("readme: %d commands, %d differ from README.md\n", ncmd, failed)
		exit failed > 0
	}
}
