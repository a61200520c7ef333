/* out: text, CSV and Markdown tables (see out.h). */
#include "base/out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

const char *const out_format_names[] = {"table", "csv", "json", "md", NULL};

/* A cell as it will be printed: control characters escaped (text.h), in every format. */
static char *dup_cell(const char *s)
{
	size_t n;
	char *p;
	if (!s)
		s = "";
	n = text_escaped_len(s);
	p = malloc(n);
	if (p)
		text_escape(p, n, s);
	return p;
}

int out_init(out_table *t, int ncols, const char *const *header)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->width = OUT_WIDTH;
	t->right = calloc((size_t)ncols, sizeof *t->right);
	t->drop = calloc((size_t)ncols, sizeof *t->drop);
	t->fit = calloc((size_t)ncols, sizeof *t->fit);
	if (!t->right || !t->drop || !t->fit)
		return -1;
	return out_row(t, header) == 0 ? (t->nrows = 0, 0) : -1;
}

void out_right(out_table *t, int col)
{
	if (col >= 0 && col < t->ncols)
		t->right[col] = 1;
}

void out_optional(out_table *t, int col, int prio)
{
	if (col >= 0 && col < t->ncols && prio > 0)
		t->drop[col] = prio;
}

void out_fit_col(out_table *t, int col, out_fit how)
{
	if (col >= 0 && col < t->ncols)
		t->fit[col] = (int)how + 1; /* 0 stays "not told" */
}

void out_wide(out_table *t, int wide)
{
	t->width = wide ? 0 : OUT_WIDTH;
}

const char *out_cell_raw(const out_table *t, int row, int col)
{
	const char *s = t->raw[row * t->ncols + col];
	return s ? s : "";
}

int out_row(out_table *t, const char *const *cells)
{
	int used = t->cells ? t->nrows + 1 : 0;
	if (used + 1 > t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		char **nc = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *nc);
		char **nr;
		if (!nc)
			return -1;
		t->cells = nc;
		if (!(nr = realloc(t->raw, (size_t)cap * (size_t)t->ncols * sizeof *nr)))
			return -1;
		t->raw = nr;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++) {
		t->cells[used * t->ncols + i] = dup_cell(cells[i]);
		t->raw[used * t->ncols + i] = strdup(cells[i] ? cells[i] : "");
	}
	if (used > 0)
		t->nrows++;
	return 0;
}

/* 1 if a cell that starts like a spreadsheet formula ('=', '+', '-', '@', tab, CR) is one of
 * the tool's own forms that no spreadsheet runs: a lone "-", or a signed number (+-2%,
 * -45.49%, -1.5e-3). */
static int csv_number_like(const char *s)
{
	const char *p = s;
	int digits = 0;
	if (!strcmp(s, "-"))
		return 1;
	while ((*p == '+' || *p == '-') && p - s < 2)
		p++;
	for (; (*p >= '0' && *p <= '9') || *p == '.'; p++)
		digits += *p != '.';
	if (digits && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			p = q;
		}
	}
	if (*p == ' ' && p[1] == '%')
		p++;
	if (*p == '%')
		p++;
	return digits && *p == '\0';
}

static void csv_cell(const char *s, FILE *fp)
{
	/* A cell a spreadsheet would read as a formula (=HYPERLINK(...), +cmd|...) is written with
	 * a leading apostrophe, which makes it text (OWASP "CSV injection"). */
	if (strchr("=+-@\t\r", s[0]) && s[0] && !csv_number_like(s)) {
		fputc('"', fp);
		fputc('\'', fp);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', fp);
			fputc(*s, fp);
		}
		fputc('"', fp);
	} else if (strpbrk(s, ",\"\n\r")) {
		fputc('"', fp);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', fp);
			fputc(*s, fp);
		}
		fputc('"', fp);
	} else {
		fputs(s, fp);
	}
}

/* " cell |" with '|' escaped, so that a cell cannot end the column early. */
static void md_cell(const char *s, FILE *fp)
{
	fputc(' ', fp);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputs(" |", fp);
}

/* Display width of s: UTF-8 code points. */
static int text_len(const char *s, int bytes)
{
	int n = 0;
	for (int i = 0; i < bytes && s[i]; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Bytes of s that hold its first `cols` code points. */
static int text_bytes(const char *s, int cols)
{
	int i = 0;
	while (s[i] && cols > 0) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		cols--;
	}
	return i;
}

/* The next piece of s that fits `cols` columns when wrapped at spaces (brk ' ', text) or
 * after underscores (brk '_', headers), into *len bytes; returns where the piece after it
 * starts. A word longer than cols is cut. */
static const char *wrap_piece(const char *s, int cols, char brk, int *len)
{
	int all = (int)strlen(s), fit = text_bytes(s, cols), cut = -1;
	if (fit >= all) {
		*len = all;
		return s + all;
	}
	if (brk == ' ') {
		for (int i = fit; i > 0; i--)
			if (s[i] == ' ') {
				cut = i;
				break;
			}
		if (cut <= 0) {
			*len = fit;
			return s + fit;
		}
		*len = cut;
		for (s += cut; *s == ' '; s++)
			;
		return s;
	}
	for (int i = fit - 1; i > 0; i--)
		if (s[i] == '_') {
			cut = i;
			break;
		}
	if (cut <= 0) {
		*len = fit;
		return s + fit;
	}
	*len = cut + 1; /* a header keeps its '_' at the end of the line */
	return s + cut + 1;
}

/* The widest piece of s wrapped at brk (the narrowest the column can be without cutting). */
static int widest_piece(const char *s, char brk)
{
	int best = 0, cur = 0;
	for (; *s; s++) {
		if (*s == brk) {
			cur += brk == '_';
			best = cur > best ? cur : best;
			cur = 0;
		} else if (((unsigned char)*s & 0xC0) != 0x80) {
			cur++;
		}
	}
	return cur > best ? cur : best;
}

/* Lines cell s takes at width w: wrapped at ' ' (or '_' for a header), or one (cut). */
static int cell_lines(const char *s, int w, char brk, int clip)
{
	int n = 0, len;
	if (clip || text_len(s, (int)strlen(s)) <= w)
		return 1;
	while (*s) {
		s = wrap_piece(s, w, brk, &len);
		n++;
	}
	return n ? n : 1;
}

static void pad(FILE *fp, int n)
{
	for (int i = 0; i < n; i++)
		fputc(' ', fp);
}

/* The aligned text table, fitted to t->width (see out.h). */
static void print_text(const out_table *t, FILE *fp)
{
	int nc = t->ncols, rows = t->nrows + 1, total, hidden = 0;
	int *cw = calloc((size_t)nc * 5 + 1, sizeof *cw), *body, *show, *fit, *below;
	int wrap_hdr = 0;
	if (!cw)
		return;
	/* Per column: width, widest value, shown, how it fits, under its row. */
	body = cw + nc;
	show = cw + 2 * nc;
	fit = cw + 3 * nc;
	below = cw + 4 * nc;
	for (int c = 0; c < nc; c++) {
		const char *h = t->cells[c];
		for (int r = 1; r < rows; r++) {
			const char *s = t->cells[r * nc + c];
			int l = text_len(s, (int)strlen(s));
			body[c] = l > body[c] ? l : body[c];
		}
		cw[c] = text_len(h, (int)strlen(h));
		cw[c] = body[c] > cw[c] ? body[c] : cw[c];
		show[c] = 1;
		fit[c] = t->fit[c] ? t->fit[c] - 1 : (c + 1 == nc && !t->right[c] ? OUT_FIT_WRAP : OUT_FIT_NONE);
	}
	for (;;) {
		int sum = 0;
		for (int c = 0; c < nc; c++)
			if (show[c])
				sum += cw[c] + 2;
		total = sum - 2;
		if (t->width <= 0 || total <= t->width)
			break;
		if (!wrap_hdr) {
			/* 1: headers wider than their values break at '_'. */
			wrap_hdr = 1;
			for (int c = 0; c < nc; c++) {
				int h = widest_piece(t->cells[c], '_');
				int want = body[c] > h ? body[c] : h;
				if (want < cw[c])
					cw[c] = want;
			}
			continue;
		}
		{
			/* 2: a column that may go under its row does. */
			int moved = 0;
			for (int c = 0; c < nc; c++)
				if (show[c] && fit[c] == OUT_FIT_BELOW) {
					show[c] = 0;
					below[c] = 1;
					moved = 1;
				}
			if (moved)
				continue;
		}
		{
			/* 3: narrow the widest text column that may wrap or be cut, to no less than 12
			 * columns or its header's widest piece. */
			int best = -1, over = total - t->width;
			for (int c = 0; c < nc; c++) {
				int floor = widest_piece(t->cells[c], '_');
				floor = floor > 12 ? floor : 12;
				if (show[c] && fit[c] != OUT_FIT_NONE && fit[c] != OUT_FIT_BELOW && cw[c] > floor &&
				    (best < 0 || cw[c] > cw[best]))
					best = c;
			}
			if (best >= 0) {
				int floor = widest_piece(t->cells[best], '_');
				floor = floor > 12 ? floor : 12;
				cw[best] = cw[best] - over > floor ? cw[best] - over : floor;
				continue;
			}
		}
		{
			/* 4: leave out the optional column of the highest priority (the rightmost of equals). */
			int best = -1;
			for (int c = 0; c < nc; c++)
				if (show[c] && t->drop[c] > 0 && (best < 0 || t->drop[c] >= t->drop[best]))
					best = c;
			if (best >= 0) {
				show[best] = 0;
				hidden++;
				continue;
			}
		}
		break;
	}
	/* 5: what leaving out columns freed goes back to the narrowed text columns. */
	for (int c = 0; t->width > 0 && c < nc && total < t->width; c++) {
		int natural = body[c] > widest_piece(t->cells[c], '_') ? body[c] : widest_piece(t->cells[c], '_');
		int add = t->width - total;
		if (!show[c] || fit[c] == OUT_FIT_NONE || cw[c] >= natural)
			continue;
		add = add < natural - cw[c] ? add : natural - cw[c];
		cw[c] += add;
		total += add;
	}
	for (int r = 0; r < rows; r++) {
		const char *at[64];
		int start[64], lines = 1, last = -1, n = nc < 64 ? nc : 64;
		char brk = r == 0 ? '_' : ' ';
		for (int c = 0; c < n; c++) {
			at[c] = t->cells[r * nc + c];
			start[c] = show[c] ? cell_lines(at[c], cw[c], brk, r > 0 && fit[c] == OUT_FIT_CLIP) : 0;
			lines = start[c] > lines ? start[c] : lines;
			last = show[c] ? c : last;
		}
		/* A header that takes fewer lines than the others sits on the last ones. */
		for (int c = 0; c < n; c++)
			start[c] = r == 0 ? lines - start[c] : 0;
		for (int ln = 0; ln < lines; ln++) {
			int owed = 0;
			for (int c = 0; c < n; c++) {
				const char *s = at[c];
				int len = 0, cols;
				if (!show[c])
					continue;
				if (ln >= start[c] && *s) {
					len = (int)strlen(s);
					if (text_len(s, len) <= cw[c]) {
						at[c] = s + len;
					} else if (r > 0 && fit[c] == OUT_FIT_CLIP) {
						len = text_bytes(s, cw[c] - 3);
						at[c] = "...";
					} else {
						at[c] = wrap_piece(s, cw[c], brk, &len);
					}
				}
				cols = text_len(s, len);
				if (t->right[c])
					owed += cw[c] - cols;
				if (len > 0) {
					pad(fp, owed);
					fwrite(s, 1, (size_t)len, fp);
					if (at[c][0] == '.' && !strcmp(at[c], "...") && r > 0 && fit[c] == OUT_FIT_CLIP) {
						fputs("...", fp);
						at[c] = "";
					}
					owed = 0;
				}
				owed += (t->right[c] ? 0 : cw[c] - cols) + (c == last ? 0 : 2);
			}
			fputc('\n', fp);
		}
		for (int c = 0; r > 0 && c < n; c++) {
			/* Under the row, from the second column on (a narrow first one), else indented. */
			int indent = show[0] && cw[0] <= 8 ? cw[0] + 2 : 4, room = t->width - indent, len;
			const char *s = at[c];
			while (below[c] && *s) {
				const char *next = wrap_piece(s, room > 20 ? room : 20, ' ', &len);
				pad(fp, indent);
				fwrite(s, 1, (size_t)len, fp);
				fputc('\n', fp);
				s = next;
			}
		}
	}
	if (hidden > 0) {
		int k = 0;
		fputs("(--wide adds:", fp);
		for (int c = 0; c < nc; c++)
			if (!show[c] && !below[c])
				fprintf(fp, "%s %s", k++ ? "," : "", t->cells[c]);
		fputs(")\n", fp);
	}
	free(cw);
}

void out_print(const out_table *t, out_format f, FILE *fp)
{
	int rows = t->nrows + 1;
	if (f == OUT_CSV) {
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < t->ncols; c++) {
				csv_cell(t->cells[r * t->ncols + c], fp);
				fputc(c + 1 < t->ncols ? ',' : '\n', fp);
			}
		return;
	}
	if (f == OUT_MD) {
		for (int r = 0; r < rows; r++) {
			fputs("|", fp);
			for (int c = 0; c < t->ncols; c++)
				md_cell(t->cells[r * t->ncols + c], fp);
			fputc('\n', fp);
			if (r == 0) {
				fputs("|", fp);
				for (int c = 0; c < t->ncols; c++)
					fputs(t->right[c] ? " ---: |" : " --- |", fp);
				fputc('\n', fp);
			}
		}
		return;
	}
	print_text(t, fp);
}

void out_release(out_table *t)
{
	int used = t->cells ? t->nrows + 1 : 0;
	for (int i = 0; i < used * t->ncols; i++) {
		free(t->cells[i]);
		free(t->raw[i]);
	}
	free(t->cells);
	free(t->raw);
	free(t->right);
	free(t->drop);
	free(t->fit);
	memset(t, 0, sizeof *t);
}

int out_parse_format(const char *s, out_format *f)
{
	for (int i = 0; out_format_names[i]; i++)
		if (strcmp(s, out_format_names[i]) == 0) {
			*f = (out_format)i;
			return 0;
		}
	return -1;
}

char *out_num(char *buf, int len, double v, int sig)
{
	if (isnan(v))
		snprintf(buf, (size_t)len, "-");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		snprintf(buf, (size_t)len, "%.*e", sig - 1, v);
	else {
		/* Fixed notation with `sig` significant digits. */
		int mag = v == 0 ? 0 : (int)floor(log10(fabs(v)));
		int dec = sig - 1 - mag;
		if (dec < 0)
			dec = 0;
		snprintf(buf, (size_t)len, "%.*f", dec, v);
	}
	return buf;
}
