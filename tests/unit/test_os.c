/* os: an input that would block (a named pipe) is refused at once; files read and written
 * whole; names of paths. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/os.h"

Test(os, a_named_pipe_is_refused_without_waiting)
{
	char dir[] = "/tmp/roofcost-os-XXXXXX", fifo[64];
	err e = {0};
	char *text;
	cr_assert(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/p.ini", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* fopen would wait here for a writer (the test would time out). */
	cr_assert_null(os_open_read(fifo, &e));
	cr_assert(strstr(e.msg, "p.ini: a named pipe, not a file: reading it would wait for a writer"), "%s", e.msg);
	cr_assert_neq(os_read_file(fifo, 1 << 20, &text, &e), 0);
	cr_assert_null(os_open_read(dir, &e));
	cr_assert(strstr(e.msg, "a folder, not a file"), "%s", e.msg);
	unlink(fifo);
	rmdir(dir);
}

Test(os, files_whole_and_names)
{
	char dir[] = "/tmp/roofcost-os-XXXXXX", path[64], stem[16], *text = NULL;
	err e = {0};
	FILE *f;
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/x.json", dir);
	cr_assert_eq(os_write_file_whole(path, "{\"a\": 1}\n", &e), 0, "%s", e.msg);
	cr_assert_eq(os_read_file(path, 1 << 20, &text, &e), 0, "%s", e.msg);
	cr_assert_str_eq(text, "{\"a\": 1}\n");
	free(text);
	cr_assert((f = os_open_read("/dev/null", &e)), "a character device opens: %s", e.msg);
	fclose(f);
	cr_assert_str_eq(os_base_name("a/b/c.ini"), "c.ini");
	os_stem("a/b/c.ini", stem, sizeof stem);
	cr_assert_str_eq(stem, "c");
	unlink(path);
	rmdir(dir);
}
