/* html: a self-contained HTML page (see html.h). */
#include "report/html.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"color:#1d1d1d;background:#fff;max-width:1040px;margin:24px auto;padding:0 16px;line-height:1.45}\n"
	"h1{font-size:1.55em;margin:0.4em 0}\nh2{font-size:1.2em;margin:1.6em 0 0.4em;"
	"border-bottom:1px solid #ddd;padding-bottom:0.2em}\n"
	"p.note{color:#555;font-size:0.9em}\ncode,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;"
	"font-size:0.88em}\npre{background:#f6f6f6;padding:8px 10px;overflow-x:auto}\n"
	"table{border-collapse:collapse;font-size:0.85em;margin:0.6em 0;display:block;overflow-x:auto}\n"
	"th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top}\nth{background:#f3f3f3;text-align:left}\n"
	"td{white-space:nowrap}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"figure{margin:0.8em 0}\nfigure svg{width:100%;height:auto;display:block}\n"
	"figcaption{font-size:0.85em;color:#555}\n.missing{border:1px dashed #bbb;padding:1em;color:#555}\n";

static char *dup_or_null(const char *s)
{
	char *d;
	if (!s)
		return NULL;
	d = malloc(strlen(s) + 1);
	if (d)
		strcpy(d, s);
	return d;
}

int html_init(html_page *p, const char *title)
{
	memset(p, 0, sizeof *p);
	p->title = dup_or_null(title ? title : "");
	return p->title ? 0 : -1;
}

static html_block *push(html_page *p, html_kind kind)
{
	html_block *b;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 32;
		html_block *nb = realloc(p->blocks, (size_t)cap * sizeof *nb);
		if (!nb)
			return NULL;
		p->blocks = nb;
		p->cap = cap;
	}
	b = &p->blocks[p->n++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	return b;
}

int html_add(html_page *p, html_kind kind, const char *id, const char *text)
{
	html_block *b = push(p, kind);
	if (!b)
		return -1;
	b->text = dup_or_null(text ? text : "");
	b->id = dup_or_null(id);
	return b->text && (!id || b->id) ? 0 : -1;
}

int html_add_table(html_page *p, out_table *t)
{
	html_block *b = push(p, HTML_TABLE);
	if (!b)
		return -1;
	b->table = *t;
	memset(t, 0, sizeof *t);
	return 0;
}

int html_add_figure(html_page *p, const char *name, const char *svg_path, const char *caption,
		    const char *missing)
{
	html_block *b = push(p, HTML_FIGURE);
	if (!b)
		return -1;
	b->id = dup_or_null(name);
	b->svg_path = dup_or_null(svg_path);
	b->text = dup_or_null(caption ? caption : "");
	b->missing = dup_or_null(missing ? missing : "");
	return b->id && b->svg_path && b->text && b->missing ? 0 : -1;
}

void html_release(html_page *p)
{
	for (int i = 0; i < p->n; i++) {
		html_block *b = &p->blocks[i];
		free(b->text);
		free(b->id);
		free(b->svg_path);
		free(b->missing);
		out_release(&b->table);
	}
	free(p->blocks);
	free(p->title);
	memset(p, 0, sizeof *p);
}

static void esc(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default: fputc(s[i], fp);
		}
	}
}

/* Text with `code` spans. */
static void inline_text(FILE *fp, const char *s)
{
	while (*s) {
		const char *a = strchr(s, '`'), *b = a ? strchr(a + 1, '`') : NULL;
		if (!a || !b) {
			esc(fp, s, strlen(s));
			return;
		}
		esc(fp, s, (size_t)(a - s));
		fputs("<code>", fp);
		esc(fp, a + 1, (size_t)(b - a - 1));
		fputs("</code>", fp);
		s = b + 1;
	}
}

static char *read_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(fp);
	return buf;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The SVG from its <svg> element on, with every id="X", href="#X" and url(#X) turned into
 * PREFIX-X, and its <title> into the caption. */
static void inline_svg(FILE *fp, const char *svg, const char *prefix, const char *caption)
{
	const char *s = strstr(svg, "<svg");
	int titled = 0;
	if (!s)
		return;
	while (*s) {
		if (!titled && starts(s, "<title>")) {
			const char *end = strstr(s, "</title>");
			if (end) {
				fputs("<title>", fp);
				esc(fp, caption, strlen(caption));
				fputs("</title>", fp);
				s = end + strlen("</title>");
				titled = 1;
				continue;
			}
		}
		if ((starts(s, " id='") || starts(s, " id=\"")) || starts(s, "href='#") || starts(s, "href=\"#")) {
			size_t k = s[0] == ' ' ? 5 : 7;
			fwrite(s, 1, k, fp);
			fprintf(fp, "%s-", prefix);
			s += k;
			continue;
		}
		if (starts(s, "url(#")) {
			fprintf(fp, "url(#%s-", prefix);
			s += 5;
			continue;
		}
		fputc(*s++, fp);
	}
}

static void table(FILE *fp, const out_table *t)
{
	fputs("<table>\n<tr>", fp);
	for (int c = 0; c < t->ncols; c++) {
		fputs("<th>", fp);
		esc(fp, t->cells[c], strlen(t->cells[c]));
		fputs("</th>", fp);
	}
	fputs("</tr>\n", fp);
	for (int r = 1; r <= t->nrows; r++) {
		fputs("<tr>", fp);
		for (int c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];
			fputs(t->right[c] ? "<td class=\"n\">" : "<td>", fp);
			esc(fp, v, strlen(v));
			fputs("</td>", fp);
		}
		fputs("</tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

int html_write(const html_page *p, const char *path, err *e)
{
	FILE *fp = fopen(path, "w");
	int figs = 0;
	if (!fp)
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", fp);
	esc(fp, p->title, strlen(p->title));
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	for (int i = 0; i < p->n; i++) {
		const html_block *b = &p->blocks[i];
		switch (b->kind) {
		case HTML_H1:
		case HTML_H2:
			fprintf(fp, "<h%d", b->kind == HTML_H1 ? 1 : 2);
			if (b->id) {
				fputs(" id=\"", fp);
				esc(fp, b->id, strlen(b->id));
				fputs("\"", fp);
			}
			fputs(">", fp);
			inline_text(fp, b->text);
			fprintf(fp, "</h%d>\n", b->kind == HTML_H1 ? 1 : 2);
			break;
		case HTML_P:
		case HTML_NOTE:
			fputs(b->kind == HTML_NOTE ? "<p class=\"note\">" : "<p>", fp);
			inline_text(fp, b->text);
			fputs("</p>\n", fp);
			break;
		case HTML_PRE:
			fputs("<pre>", fp);
			esc(fp, b->text, strlen(b->text));
			fputs("</pre>\n", fp);
			break;
		case HTML_TABLE:
			table(fp, &b->table);
			break;
		case HTML_FIGURE: {
			char *svg = read_file(b->svg_path);
			char prefix[32];
			snprintf(prefix, sizeof prefix, "f%d", ++figs);
			fputs("<figure id=\"", fp);
			esc(fp, b->id, strlen(b->id));
			fputs("\">\n", fp);
			if (svg && strstr(svg, "<svg")) {
				inline_svg(fp, svg, prefix, b->text);
				fputs("\n", fp);
			} else {
				fputs("<div class=\"missing\">", fp);
				inline_text(fp, b->missing);
				fputs("</div>\n", fp);
			}
			free(svg);
			fputs("<figcaption>", fp);
			inline_text(fp, b->text);
			fputs("</figcaption>\n</figure>\n", fp);
			break;
		}
		}
	}
	fputs("</body>\n</html>\n", fp);
	if (ferror(fp) | (fclose(fp) != 0))
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}
