// Runs geneva_count from geneva.cu (included before this file) on an input dumped by the Go
// test: partitions, vertex labels, the step descriptor, the shared partition, the rows.
static FILE* in;
template <class T> static std::vector<T> readv() {
	unsigned long long n;
	if (fread(&n, 8, 1, in) != 1) { fprintf(stderr, "short input\n"); exit(2); }
	std::vector<T> v(n ? n : 1);
	if (n && fread(v.data(), sizeof(T), n, in) != n) { fprintf(stderr, "short input\n"); exit(2); }
	return v;
}
int main(int argc, char** argv) {
	in = fopen(argv[1], "rb");
	if (!in) return 2;
	auto nparts = readv<unsigned long long>()[0];
	std::vector<std::vector<u32>> starts(nparts), bases(nparts), nbrs(nparts);
	std::vector<std::vector<u64>> offsets(nparts);
	std::vector<Part> parts(nparts);
	for (unsigned long long i = 0; i < nparts; i++) {
		starts[i] = readv<u32>();
		auto ns = readv<unsigned long long>()[0];
		bases[i] = readv<u32>();
		offsets[i] = readv<u64>();
		nbrs[i] = readv<u32>();
		parts[i] = Part{starts[i].data(), bases[i].data(), offsets[i].data(), nbrs[i].data(), (u32)ns, 0};
	}
	auto vlabels = readv<u32>();
	auto desc = readv<u32>();
	int sharedPart = (int)(long long)readv<unsigned long long>()[0];
	auto rows = readv<u32>();
	auto meta = readv<unsigned long long>();  // rowLo, rowHi, grid
	u64 ctr[3] = {0, 0, 0};
	gridDim = {(unsigned)meta[2], 1, 1};
	blockDim = {256, 1, 1};
	for (unsigned b = 0; b < gridDim.x; b++) {
		for (auto& w : emuWarps) w.bar = std::make_unique<std::barrier<>>(32);
		emuBlock = std::make_unique<std::barrier<>>(256);
		std::vector<std::thread> ts;
		for (unsigned t = 0; t < 256; t++) {
			ts.emplace_back([&, b, t] {
				threadIdx = {t, 0, 0};
				blockIdx = {b, 0, 0};
				geneva_count(desc.data(), parts.data(), sharedPart, vlabels.data(), rows.data(), meta[0], meta[1], ctr);
			});
		}
		for (auto& t : ts) t.join();
	}
	printf("%llu %llu\n", ctr[0], ctr[1]);
	return 0;
}
