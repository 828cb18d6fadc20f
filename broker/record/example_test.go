package record_test

import (
	"errors"
	"fmt"

	"kafgo/broker/record"
)

func ExampleBuilder() {
	b := record.NewBuilder(100, record.CodecZstd)
	b.SetProducer(7, 0, 0)
	b.Append(1_700_000_000_000, []byte("k1"), []byte("v1"), nil)
	b.Append(1_700_000_000_005, nil, []byte("v2"), []record.Header{{Key: "trace", Value: []byte("x")}})
	raw, err := b.Build()
	if err != nil {
		panic(err)
	}
	batch, err := record.ParseBatch(raw, 1<<20)
	if err != nil {
		panic(err)
	}
	for i := range batch.Records {
		r := &batch.Records[i]
		fmt.Println(batch.OffsetOf(r), batch.TimestampOf(r), batch.SequenceOf(r), r.Key == nil, string(r.Value))
	}
	// Output:
	// 100 1700000000000 0 false v1
	// 101 1700000000005 1 true v2
}

func ExampleBatchIter() {
	var log []byte
	for i := 0; i < 3; i++ {
		b := record.NewBuilder(int64(i), record.CodecNone)
		b.Append(0, nil, []byte("v"), nil)
		raw, _ := b.Build()
		log = append(log, raw...)
	}
	log = log[:len(log)-5] // a crash tore the last batch

	it := record.NewBatchIter(log)
	for it.Next() {
		h := it.Header()
		fmt.Println("batch", h.BaseOffset, "at", it.Pos(), "crc ok:", record.VerifyCRC(it.Raw()) == nil)
	}
	fmt.Println("stopped at", it.Pos(), "torn:", errors.Is(it.Err(), record.ErrTruncated))
	// Output:
	// batch 0 at 0 crc ok: true
	// batch 1 at 69 crc ok: true
	// stopped at 138 torn: true
}
