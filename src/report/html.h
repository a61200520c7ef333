/* html: a page of headings, paragraphs, tables and figures, written as one self-contained
 * HTML file.
 *
 * A figure's SVG file is read and inlined (from its <svg> element on), its ids and the
 * references to them prefixed per figure so that several SVGs can live in one page; the
 * style sheet is inside the file; there are no scripts and no references to anything outside
 * the file, so the page opens offline and can be mailed as it is. Text is escaped. A figure
 * whose SVG cannot be read shows its `missing` text instead. Knows nothing of how the SVG was
 * made or what the page says; the page model is also what a Markdown writer can walk. */
#ifndef ROOFCOST_HTML_H
#define ROOFCOST_HTML_H

#include "base/err.h"
#include "base/out.h"

typedef enum html_kind { HTML_H1, HTML_H2, HTML_P, HTML_NOTE, HTML_PRE, HTML_TABLE, HTML_FIGURE } html_kind;

typedef struct html_block {
	html_kind kind;
	char *text;          /* heading, paragraph, note, preformatted text; figure caption; owned */
	char *id;            /* heading: anchor id (a-z0-9_-); figure: its name; owned, may be NULL */
	char *svg_path;      /* figure: the SVG file to inline; owned */
	char *missing;       /* figure: shown when the SVG cannot be read; owned */
	out_table table;     /* HTML_TABLE: owned (html_add_table takes it over) */
} html_block;

typedef struct html_page {
	char *title;         /* owned */
	html_block *blocks;  /* owned */
	int n, cap;
} html_page;

/* Starts an empty page. Returns 0 or -1 (out of memory). Release with html_release. */
int html_init(html_page *p, const char *title);

/* Adds a heading (id may be NULL), paragraph, note or preformatted block; text is copied.
 * Returns 0 or -1. */
int html_add(html_page *p, html_kind kind, const char *id, const char *text);

/* Adds a table, taking over *t (which is left empty). Returns 0 or -1. */
int html_add_table(html_page *p, out_table *t);

/* Adds a figure: the SVG at svg_path, its caption, the text shown without it. Returns 0 or -1. */
int html_add_figure(html_page *p, const char *name, const char *svg_path, const char *caption,
		    const char *missing);

/* Writes the page to path. Returns 0, or nonzero with e set. */
int html_write(const html_page *p, const char *path, err *e);

void html_release(html_page *p);

#endif
