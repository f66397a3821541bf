package gpucsm

// ListGroups is how an engine lists the matches of searches whose counts it knows, through a
// buffer that holds limit matches: consecutive searches in groups whose matches fit the buffer
// (yield(lo, hi, sum, false): searches [lo, hi), sum matches in all; a group starts at a search
// with matches and may end with some without), and a search with more than limit matches alone,
// for the host to list (yield(i, i+1, count, true)). The first error of yield is returned.
func ListGroups(counts []uint64, limit uint64, yield func(lo, hi int, sum uint64, host bool) error) error {
	n := len(counts)
	for lo := 0; lo < n; {
		if counts[lo] == 0 {
			lo++
			continue
		}
		if counts[lo] > limit {
			if err := yield(lo, lo+1, counts[lo], true); err != nil {
				return err
			}
			lo++
			continue
		}
		hi, sum := lo+1, counts[lo]
		for hi < n && sum+counts[hi] <= limit {
			sum += counts[hi]
			hi++
		}
		if err := yield(lo, hi, sum, false); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}
