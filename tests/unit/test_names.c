/* names: edit distance, suggestions, paths inside files, lookup in a folder. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/names.h"

Test(names, distance_by_hand)
{
	/* kitten -> sitten (k/s) -> sittin (e/i) -> sitting (+g): 3. */
	cr_assert_eq(names_distance("kitten", "sitting"), 3);
	/* One letter missing at the end. */
	cr_assert_eq(names_distance("p5.48xlarg", "p5.48xlarge"), 1);
	/* Case does not count. */
	cr_assert_eq(names_distance("TRN2.48XLARGE", "trn2.48xlarge"), 0);
	/* Two neighbours swapped count once (ab -> ba), not twice. */
	cr_assert_eq(names_distance("ab", "ba"), 1);
	/* trn2 -> trn2.48xlarge: 9 insertions (".48xlarge"); -> trn2-ultraserver: 12. */
	cr_assert_eq(names_distance("trn2", "trn2.48xlarge"), 9);
	cr_assert_eq(names_distance("trn2", "trn2-ultraserver"), 12);
	cr_assert_eq(names_distance("", "abc"), 3);
}

Test(names, suggestions_nearest_first)
{
	const char *sys[] = {"dgx-h100", "p5.48xlarge", "p5e.48xlarge", "tpu-v6e", "trn2-ultraserver", "trn2.48xlarge"};
	char buf[256];
	/* Both contain "trn2"; by distance 9 before 12. */
	names_suggest("trn2", sys, 6, buf, sizeof buf);
	cr_assert_str_eq(buf, "'trn2.48xlarge', 'trn2-ultraserver'");
	/* Within a third of the length (10 / 3 = 3): p5.48xlarge at 1, p5e.48xlarge at 2. */
	names_suggest("p5.48xlarg", sys, 6, buf, sizeof buf);
	cr_assert_str_eq(buf, "'p5.48xlarge', 'p5e.48xlarge'");
	names_suggest("h100", sys, 6, buf, sizeof buf);
	cr_assert_str_eq(buf, "'dgx-h100'");
	names_suggest("zzzzzz", sys, 6, buf, sizeof buf);
	cr_assert_str_eq(buf, "");
}

Test(names, suggestions_once_each_and_at_most_four)
{
	const char *ids[] = {"a1", "a1", "a2", "a3", "a4", "a5"};
	char buf[256];
	names_suggest("a", ids, 6, buf, sizeof buf);
	cr_assert_str_eq(buf, "'a1', 'a2', 'a3', 'a4'");
}

Test(names, relative_to_the_file)
{
	char out[128];
	names_relative("work/w.ini", "m.ini", out, sizeof out);
	cr_assert_str_eq(out, "work/m.ini");
	names_relative("w.ini", "m.ini", out, sizeof out);
	cr_assert_str_eq(out, "m.ini");
	names_relative("a/b/w.ini", "../m.ini", out, sizeof out);
	cr_assert_str_eq(out, "a/b/../m.ini");
	names_relative("a/w.ini", "/abs/m.ini", out, sizeof out);
	cr_assert_str_eq(out, "/abs/m.ini");
}

Test(names, find_in_a_folder)
{
	char dir[] = "/tmp/roofcost-names-XXXXXX", path[64], out[64];
	err e = {0};
	cr_assert_not_null(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		FILE *f;
		snprintf(path, sizeof path, "%s/%s", dir, i ? "bar.ini" : "Foo.ini");
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fclose(f);
	}
	cr_assert_eq(names_find(dir, "bar", "system", out, sizeof out, &e), 0);
	cr_assert_str_eq(out, "bar");
	cr_assert_eq(names_find(dir, "foo", "system", out, sizeof out, &e), 0);
	cr_assert_str_eq(out, "Foo");
	cr_assert_eq(names_find(dir, "BAR", "system", out, sizeof out, &e), 0);
	cr_assert_str_eq(out, "bar");
	cr_assert_eq(names_find(dir, "baz", "system", out, sizeof out, &e), ERR_DATA);
	cr_assert_str_eq(e.msg, "unknown system 'baz'; did you mean 'bar'?");
	cr_assert_eq(names_find(dir, "quux", "workload", out, sizeof out, &e), ERR_DATA);
	cr_assert_str_eq(e.msg, "unknown workload 'quux' (see 'roofcost list workloads')");
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, i ? "bar.ini" : "Foo.ini");
		unlink(path);
	}
	rmdir(dir);
}
