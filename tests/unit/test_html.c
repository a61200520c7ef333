/* html: one self-contained page. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "report/html.h"

Test(html, svg_inlined_with_ids_per_figure_and_text_escaped)
{
	char dir[] = "/tmp/html-test-XXXXXX", svg[128], page[128], *text;
	static const char *const hdr[] = {"a<b", "n"};
	static const char *const row[] = {"x&y", "1"};
	html_page p;
	out_table t;
	err e = {0};
	FILE *fp;
	cr_assert(mkdtemp(dir));
	snprintf(svg, sizeof svg, "%s/a.svg", dir);
	fp = fopen(svg, "w");
	fputs("<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 10 10\">\n<title>Gnuplot</title>"
	      "<defs><path id='pt1' d='M0,0'/></defs><g id=\"g\"><use xlink:href='#pt1'/>"
	      "<rect clip-path=\"url(#c)\"/></g></svg>\n", fp);
	fclose(fp);
	cr_assert_eq(html_init(&p, "T & U"), 0);
	cr_assert_eq(html_add(&p, HTML_H1, NULL, "T & U"), 0);
	cr_assert_eq(html_add(&p, HTML_P, NULL, "see `data/x.csv` <now>"), 0);
	cr_assert_eq(out_init(&t, 2, hdr), 0);
	out_right(&t, 1);
	out_row(&t, row);
	cr_assert_eq(html_add_table(&p, &t), 0);
	cr_assert_eq(html_add_figure(&p, "a", svg, "the caption", "not drawn"), 0);
	cr_assert_eq(html_add_figure(&p, "b", "/nonexistent.svg", "other", "plot b not drawn"), 0);
	snprintf(page, sizeof page, "%s/index.html", dir);
	cr_assert_eq(html_write(&p, page, &e), 0, "%s", e.msg);
	text = fx_slurp(page);
	cr_assert(text, "%s unreadable", page);
	cr_assert(strstr(text, "<title>T &amp; U</title>"));
	cr_assert(strstr(text, "<code>data/x.csv</code> &lt;now&gt;"));
	cr_assert(strstr(text, "<th>a&lt;b</th>"));
	cr_assert(strstr(text, "<td>x&amp;y</td><td class=\"n\">1</td>"));
	cr_assert_null(strstr(text, "<?xml"), "the XML declaration stays out of the page");
	cr_assert(strstr(text, "<title>the caption</title>"));
	cr_assert(strstr(text, "id='f1-pt1'") && strstr(text, "href='#f1-pt1'"));
	cr_assert(strstr(text, "id=\"f1-g\"") && strstr(text, "url(#f1-c)"));
	cr_assert(strstr(text, "plot b not drawn"));
	cr_assert_null(strstr(text, "<script"));
	cr_assert_null(strstr(text, " src="));
	free(text);
	html_release(&p);
	remove(page);
	remove(svg);
	rmdir(dir);
}
