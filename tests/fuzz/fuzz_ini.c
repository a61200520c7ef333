/* libFuzzer harness: the INI loaders (cfg through nn, chip, system, framework and workload files) on any
 * bytes. Seeds: models/ and workloads/. A finding is a crash, a sanitizer report or a hang. */
#include "fuzz_common.h"

#include "model/fw.h"
#include "model/hw.h"
#include "model/nn.h"
#include "model/wl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hw_system sys;
	static nn_net net;
	static wl_workload w;
	static fw_framework fw;
	static const char *const sets[] = {"concurrency=4", "tp=2"};
	const char *path = fuzz_file(data, size, ".ini");
	err e = {0};
	nn_load(path, &net, &e);
	hw_load_chip(path, &sys.chip, &e);
	fw_load(path, &fw, &e);
	hw_load_system(path, "models", &sys, &e);
	wl_load(path, "workloads", "models", sets, 2, &w, &e);
	return 0;
}
