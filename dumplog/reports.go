package dumplog

// pair is one reported (index value, log value) pair.
type pair struct{ a, b int64 }

// fileReport collects pairs per absolute path, keeping the order in which
// files first appeared (Kafka's HashMap order is arbitrary; a stable order
// keeps the output reproducible).
type fileReport struct {
	order []string
	pairs map[string][]pair
}

func (r *fileReport) add(path string, a, b int64) {
	if r.pairs == nil {
		r.pairs = map[string][]pair{}
	}
	if _, ok := r.pairs[path]; !ok {
		r.order = append(r.order, path)
	}
	r.pairs[path] = append(r.pairs[path], pair{a, b})
}

// each calls fn per file; newestFirst lists a file's pairs in reverse,
// which is what Kafka prints for the reports it builds by prepending to a
// Scala List.
func (r *fileReport) each(newestFirst bool, fn func(path string, pairs []pair)) {
	for _, path := range r.order {
		ps := r.pairs[path]
		if newestFirst {
			rev := make([]pair, len(ps))
			for i, p := range ps {
				rev[len(ps)-1-i] = p
			}
			ps = rev
		}
		fn(path, ps)
	}
}

// reports are what Kafka prints on stderr after dumping every file.
type reports struct {
	indexMismatch  fileReport // (index offset, log offset)
	timeMismatch   fileReport // (index timestamp, log timestamp)
	outOfOrder     fileReport // (index timestamp, previous index timestamp)
	notFound       fileReport // (index offset, found log offset or -1)
	nonConsecutive fileReport // (offset, following offset)
}

func (r *reports) print(d *dumper) {
	r.indexMismatch.each(true, func(path string, ps []pair) {
		d.eprintf("Mismatches in :%s\n", path)
		for _, p := range ps {
			d.eprintf("  Index offset: %d, log offset: %d\n", p.a, p.b)
		}
	})
	r.timeMismatch.each(false, func(path string, ps []pair) {
		d.eprintf("Found timestamp mismatch in :%s\n", path)
		for _, p := range ps {
			d.eprintf("  Index timestamp: %d, log timestamp: %d\n", p.a, p.b)
		}
	})
	r.outOfOrder.each(false, func(path string, ps []pair) {
		d.eprintf("Found out of order timestamp in :%s\n", path)
		for _, p := range ps {
			d.eprintf("  Index timestamp: %d, Previously indexed timestamp: %d\n", p.a, p.b)
		}
	})
	r.notFound.each(false, func(_ string, ps []pair) {
		d.eprintf("The following indexed offsets are not found in the log.\n")
		for _, p := range ps {
			d.eprintf("Indexed offset: %d, found log offset: %d\n", p.a, p.b)
		}
	})
	r.nonConsecutive.each(true, func(path string, ps []pair) {
		d.eprintf("Non-consecutive offsets in %s\n", path)
		for _, p := range ps {
			d.eprintf("  %d is followed by %d\n", p.a, p.b)
		}
	})
}
