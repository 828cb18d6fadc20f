package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Bounds of the message browser: a read fetches pageRecords, and the
// browser keeps at most maxBrowserRecords (dropping from the far end),
// each cut to maxRecordBytes, so following a busy partition for hours
// costs the same memory as for a minute.
const (
	pageRecords       = 100
	maxBrowserRecords = 500
)

// tailPoll bounds one poll of a followed partition; an idle partition
// then costs one empty poll per tailPoll.
const tailPoll = time.Second

// browserPage reads one partition's records from an offset, a time or
// the latest N, pages through them (past either end of what it holds it
// reads more), decodes them as text, JSON or hex, and follows new
// records as they come (tail -f).
type browserPage struct {
	topic     string
	partition int32
	pos       Position // where the next jump reads from
	id        int

	records    []Record // oldest first
	start, end int64    // log start offset and high watermark at the last read
	list       listState
	mode       decodeMode
	loading    string // what is being read, "" when nothing
	err        string

	follow  bool
	tail    Tail
	tailGen int // a new tail (or none) voids the polls of the old one

	// matches caches which records the filter keeps (see shown).
	matches matchCache
}

// matchCache is the indexes of the records a filter keeps, for the
// records held when it was computed (their count and end offsets tell).
type matchCache struct {
	filter      string
	n           int
	first, last int64
	idx         []int
	valid       bool
}

func newBrowserPage(topic string, partition int32) *browserPage {
	return &browserPage{topic: topic, partition: partition, pos: Position{Kind: AtLatest, N: pageRecords}, start: -1, end: -1}
}

// How a read's records join those held.
type readKind int

const (
	readJump  readKind = iota // replace them
	readNewer                 // append
	readOlder                 // prepend
)

type (
	readMsg struct {
		id   int
		kind readKind
		page Page
		err  error
	}
	tailOpenedMsg struct {
		id, gen int
		tail    Tail
		err     error
	}
	tailMsg struct {
		id, gen int
		recs    []Record
		err     error
	}
)

func (m readMsg) pageID() int       { return m.id }
func (m tailOpenedMsg) pageID() int { return m.id }
func (m tailMsg) pageID() int       { return m.id }

// release closes a tail that opened after its page was left.
func (m tailOpenedMsg) release() {
	if m.tail != nil {
		m.tail.Close()
	}
}

func (v *browserPage) crumb() string { return fmt.Sprintf("Messages %s", tp{v.topic, v.partition}) }

func (v *browserPage) open(e *env, id int) tea.Cmd {
	v.id = id
	return v.read(e, readJump, ReadRequest{Position: v.pos, Max: pageRecords, Until: -1})
}

func (v *browserPage) reload(e *env, id int) tea.Cmd {
	if v.follow || v.loading != "" {
		return nil
	}
	if len(v.records) > 0 {
		// Stay where the reader is, with what came since.
		v.pos = Position{Kind: AtOffset, Offset: v.records[0].Offset}
	}
	return v.read(e, readJump, ReadRequest{Position: v.pos, Max: pageRecords, Until: -1})
}

func (v *browserPage) close() { v.stopTail() }

func (v *browserPage) stopTail() {
	if v.tail != nil {
		v.tail.Close()
		v.tail = nil
	}
	v.follow = false
	v.tailGen++
}

func (v *browserPage) read(e *env, kind readKind, r ReadRequest) tea.Cmd {
	ms, ok := e.src.(MessageSource)
	if !ok {
		v.err = "this source cannot read records"
		return nil
	}
	r.Topic, r.Partition = v.topic, v.partition
	v.loading = map[readKind]string{readJump: "reading", readNewer: "reading newer records", readOlder: "reading older records"}[kind]
	id, ctx, timeout := v.id, e.ctx, e.timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		pg, err := ms.Read(ctx, r)
		return readMsg{id: id, kind: kind, page: pg, err: err}
	}
}

// poll waits for the tail's next records.
func (v *browserPage) poll(e *env) tea.Cmd {
	t, id, gen, ctx := v.tail, v.id, v.tailGen, e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, tailPoll)
		defer cancel()
		recs, err := t.Poll(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
		return tailMsg{id: id, gen: gen, recs: recs, err: err}
	}
}

func (v *browserPage) startTail(e *env) tea.Cmd {
	ms, ok := e.src.(MessageSource)
	if !ok {
		v.err = "this source cannot read records"
		return nil
	}
	v.stopTail()
	v.follow = true
	// Following watches the newest records: the selection goes to the
	// last and stays with it as records come.
	keys := v.keys()
	v.list.cur.set(keys, len(keys)-1)
	from := v.end
	if n := len(v.records); n > 0 {
		from = v.records[n-1].Offset + 1
	}
	if from < 0 {
		from = 0
	}
	topic, part, id, gen, ctx := v.topic, v.partition, v.id, v.tailGen, e.ctx
	return func() tea.Msg {
		t, err := ms.Follow(ctx, topic, part, from)
		return tailOpenedMsg{id: id, gen: gen, tail: t, err: err}
	}
}

// shown are the records the list shows: those held that the filter
// keeps (all without one). The filter works on what is loaded, so paging
// past either end of the shown ones reads more, as without a filter.
func (v *browserPage) shown() []Record {
	f := strings.ToLower(v.list.filter)
	if f == "" {
		return v.records
	}
	c := &v.matches
	n := len(v.records)
	if !c.valid || c.filter != f || c.n != n || (n > 0 && (c.first != v.records[0].Offset || c.last != v.records[n-1].Offset)) {
		*c = matchCache{filter: f, n: n, valid: true}
		if n > 0 {
			c.first, c.last = v.records[0].Offset, v.records[n-1].Offset
		}
		for i, r := range v.records {
			if recordMatches(r, f) {
				c.idx = append(c.idx, i)
			}
		}
	}
	out := make([]Record, len(c.idx))
	for i, j := range c.idx {
		out[i] = v.records[j]
	}
	return out
}

// recordMatches reports whether a record's offset, key, value or a
// header holds lowered (a lower-case filter), ignoring case.
func recordMatches(r Record, lowered string) bool {
	has := func(b []byte) bool { return strings.Contains(strings.ToLower(string(b)), lowered) }
	if strings.Contains(strconv.FormatInt(r.Offset, 10), lowered) || has(r.Key) || has(r.Value) {
		return true
	}
	for _, h := range r.Headers {
		if has([]byte(h.Key)) || has(h.Value) {
			return true
		}
	}
	return false
}

func (v *browserPage) keys() []string { return recordKeys(v.shown()) }

func recordKeys(recs []Record) []string {
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = strconv.FormatInt(r.Offset, 10)
	}
	return keys
}

// add joins records to those held, keeping at most maxBrowserRecords.
func (v *browserPage) add(kind readKind, recs []Record) {
	switch kind {
	case readJump:
		v.records = append([]Record(nil), recs...)
	case readNewer:
		v.records = append(v.records, recs...)
		if n := len(v.records); n > maxBrowserRecords {
			v.records = append([]Record(nil), v.records[n-maxBrowserRecords:]...)
		}
	case readOlder:
		v.records = append(append([]Record(nil), recs...), v.records...)
		if len(v.records) > maxBrowserRecords {
			v.records = v.records[:maxBrowserRecords]
		}
	}
}

func (v *browserPage) update(msg tea.Msg, e *env) tea.Cmd {
	switch msg := msg.(type) {
	case readMsg:
		v.loading = ""
		if msg.err != nil {
			v.err = firstLine(msg.err.Error())
			return nil
		}
		v.err = ""
		v.start, v.end = msg.page.Start, msg.page.End
		n := len(v.shown())
		atEnd := n > 0 && v.list.cur.idx == n-1
		before := ""
		if n > 0 {
			before = v.list.cur.key // a reload keeps the reader's place
		}
		v.add(msg.kind, msg.page.Records)
		keys := v.keys()
		// The records just read that the filter keeps.
		var read []string
		lowered := strings.ToLower(v.list.filter)
		for _, r := range msg.page.Records {
			if lowered == "" || recordMatches(r, lowered) {
				read = append(read, strconv.FormatInt(r.Offset, 10))
			}
		}
		switch {
		case msg.kind == readJump && before != "" && slices.Contains(keys, before):
			v.list.cur.sync(keys)
		case msg.kind == readJump && v.pos.Kind == AtLatest:
			v.list.cur.set(keys, len(keys)-1)
		case msg.kind == readJump:
			v.list.cur.set(keys, 0)
		case msg.kind == readNewer && atEnd && len(read) > 0:
			// Step onto the first newly read record.
			v.list.cur.key = read[0]
			v.list.cur.sync(keys)
		case msg.kind == readOlder && len(read) > 0:
			v.list.cur.key = read[len(read)-1]
			v.list.cur.sync(keys)
		default:
			v.list.cur.sync(keys)
		}
	case tailOpenedMsg:
		if msg.gen != v.tailGen {
			msg.release()
			return nil
		}
		if msg.err != nil {
			v.follow, v.err = false, firstLine(msg.err.Error())
			return nil
		}
		v.tail = msg.tail
		return v.poll(e)
	case tailMsg:
		if msg.gen != v.tailGen || v.tail == nil {
			return nil
		}
		if msg.err != nil {
			v.err = firstLine(msg.err.Error())
			v.stopTail()
			return nil
		}
		if len(msg.recs) > 0 {
			n := len(v.shown())
			follow := n == 0 || v.list.cur.idx >= n-1
			v.add(readNewer, msg.recs)
			last := msg.recs[len(msg.recs)-1].Offset
			v.end = max(v.end, last+1)
			keys := v.keys()
			if follow {
				v.list.cur.set(keys, len(keys)-1)
			} else {
				v.list.cur.sync(keys)
			}
		}
		return v.poll(e)
	case tea.KeyMsg:
		return v.key(msg, e)
	}
	return nil
}

func (v *browserPage) key(msg tea.KeyMsg, e *env) tea.Cmd {
	k := e.k
	keys := v.keys()
	n := len(keys)
	first, last := n > 0 && v.list.cur.idx == 0, n > 0 && v.list.cur.idx == n-1
	switch {
	case key.Matches(msg, k.Decode):
		v.mode = (v.mode + 1) % numDecodeModes
		return nil
	case key.Matches(msg, k.Follow):
		if v.follow {
			v.stopTail()
			return nil
		}
		return v.startTail(e)
	case key.Matches(msg, k.GoTo):
		v.askGoTo(e)
		return nil
	case key.Matches(msg, k.PrevItem, k.NextItem):
		return v.otherPartition(e, key.Matches(msg, k.NextItem))
	case key.Matches(msg, k.Open):
		if r, ok := v.selected(); ok {
			e.openPage(&recordPage{topic: v.topic, partition: v.partition, rec: r, mode: v.mode})
		}
		return nil
	}
	// Past either end of what is shown, read more: with a filter, a
	// read may add no match, and the next key reads further.
	if v.loading == "" && !v.follow {
		older := key.Matches(msg, k.Up, k.PageUp, k.Home) && (first || n == 0)
		newer := key.Matches(msg, k.Down, k.PageDown, k.End) && (last || n == 0)
		held := len(v.records)
		switch {
		case older && held > 0 && v.records[0].Offset > v.start:
			from := max(v.start, v.records[0].Offset-pageRecords)
			return v.read(e, readOlder, ReadRequest{Position: Position{Kind: AtOffset, Offset: from}, Max: pageRecords, Until: v.records[0].Offset})
		case newer && held > 0 && v.records[held-1].Offset+1 < v.end:
			return v.read(e, readNewer, ReadRequest{Position: Position{Kind: AtOffset, Offset: v.records[held-1].Offset + 1}, Max: pageRecords, Until: -1})
		case newer && held == 0:
			return v.read(e, readJump, ReadRequest{Position: v.pos, Max: pageRecords, Until: -1})
		}
	}
	v.list.key(msg, k, listing{rows: keyRows(keys)})
	return nil
}

func (v *browserPage) selected() (Record, bool) {
	recs := v.shown()
	if len(recs) == 0 {
		return Record{}, false
	}
	return recs[min(max(v.list.cur.idx, 0), len(recs)-1)], true
}

// otherPartition moves to the previous or next partition of the topic,
// at its latest records.
func (v *browserPage) otherPartition(e *env, next bool) tea.Cmd {
	t, ok := e.s.Topic(v.topic)
	if !ok || len(t.Partitions) == 0 {
		return nil
	}
	keys := partitionKeys(t)
	c := cursor{key: strconv.Itoa(int(v.partition))}
	c.sync(keys)
	if next {
		c.move(keys, 1)
	} else {
		c.move(keys, -1)
	}
	p, _ := strconv.Atoi(c.key)
	if int32(p) == v.partition {
		return nil
	}
	v.stopTail()
	v.partition, v.records, v.list, v.start, v.end = int32(p), nil, listState{filter: v.list.filter}, -1, -1
	v.pos = Position{Kind: AtLatest, N: pageRecords}
	return v.read(e, readJump, ReadRequest{Position: v.pos, Max: pageRecords, Until: -1})
}

func partitionKeys(t Topic) []string {
	keys := make([]string, len(t.Partitions))
	for i, p := range t.Partitions {
		keys[i] = strconv.Itoa(int(p.ID))
	}
	return keys
}

// askGoTo asks where to read from.
func (v *browserPage) askGoTo(e *env) {
	fields := []field{{label: "From", hint: "offset, -N (latest N), earliest, latest, or a time: 2006-01-02T15:04:05Z, -5m, @<unix ms>"}}
	e.input(inputPrompt("Go to", fields, func(vals []string) (tea.Cmd, error) {
		pos, err := parsePosition(vals[0], e.now)
		if err != nil {
			return nil, err
		}
		v.stopTail()
		v.pos, v.records, v.list = pos, nil, listState{filter: v.list.filter}
		return v.read(e, readJump, ReadRequest{Position: pos, Max: pageRecords, Until: -1}), nil
	}))
}

// parsePosition reads the go-to prompt: an offset; -N for the latest N
// records; earliest or latest; a time as RFC 3339, as @ and unix
// milliseconds, or as a duration before now (-5m, -1h30m).
func parsePosition(s string, now time.Time) (Position, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "earliest", "beginning":
		return Position{Kind: AtEarliest}, nil
	case "latest", "end":
		return Position{Kind: AtLatest, N: pageRecords}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return Position{Kind: AtLatest, N: int(-n)}, nil
		}
		return Position{Kind: AtOffset, Offset: n}, nil
	}
	if ms, ok := strings.CutPrefix(s, "@"); ok {
		n, err := strconv.ParseInt(ms, 10, 64)
		if err != nil {
			return Position{}, fmt.Errorf("want @ and unix milliseconds, got %q", s)
		}
		return Position{Kind: AtTime, Millis: n}, nil
	}
	if d, ok := strings.CutPrefix(s, "-"); ok {
		dur, err := time.ParseDuration(d)
		if err == nil {
			if now.IsZero() {
				now = time.Now()
			}
			return Position{Kind: AtTime, Millis: now.Add(-dur).UnixMilli()}, nil
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return Position{Kind: AtTime, Millis: t.UnixMilli()}, nil
		}
	}
	return Position{}, fmt.Errorf("cannot read %q as an offset, -N, earliest, latest or a time", s)
}

func (v *browserPage) sync(*env) { v.list.cur.sync(v.keys()) }

// The filter keeps the loaded records whose key, value or headers hold
// it; paging still reads by offset around all of those loaded.
func (v *browserPage) filterable(*env) *listState { return &v.list }

func (v *browserPage) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "record"), k.Filter, k.GoTo, k.Follow, k.Decode, withHelp(k.NextItem, "next partition")}
}

func (v *browserPage) scroll(_ *env, _, h int) {
	v.list.scroll(listing{rows: keyRows(v.keys())}, max(1, h-3))
}

// keyRows are rows with only keys, for moving a cursor over them.
func keyRows(keys []string) []row {
	rows := make([]row, len(keys))
	for i, k := range keys {
		rows[i].key = k
	}
	return rows
}

// timeLayout shows record timestamps in UTC, to the millisecond.
const timeLayout = "2006-01-02 15:04:05.000"

func (v *browserPage) render(e *env, w, h int) []string {
	st := e.st
	bounds := "offsets -"
	if v.start >= 0 && v.end >= 0 {
		bounds = fmt.Sprintf("offsets %d–%d", v.start, v.end)
	}
	shown := "no records"
	if n := len(v.records); n > 0 {
		shown = fmt.Sprintf("%s %d–%d", plural(n, "record", "records"), v.records[0].Offset, v.records[n-1].Offset)
	}
	state := v.mode.String()
	if v.follow {
		state += " · " + st.good.Render("following")
	}
	out := []string{joinParts("Topic "+st.title.Render(v.topic), fmt.Sprintf("partition %d", v.partition), bounds, shown, state)}
	recs := v.shown()
	switch {
	case v.err != "":
		out = append(out, st.bad.Render(v.err))
	case v.loading != "":
		out = append(out, st.dim.Render(v.loading+"…"))
	case v.list.filter != "":
		out = append(out, st.dim.Render(fmt.Sprintf("filter %q: %d of the %s loaded match", v.list.filter, len(recs),
			plural(len(v.records), "record", "records"))))
	default:
		out = append(out, "")
	}
	tb := table{cols: []column{{title: "OFFSET", right: true}, {title: "TIMESTAMP (UTC)"}, {title: "KEY", flex: true},
		{title: "VALUE", flex: true}, {title: "SIZE", right: true, drop: 1}, {title: "HEADERS", right: true, drop: 1}},
		sel: v.list.cur.idx}
	for _, r := range recs {
		ts := "-"
		if !r.Timestamp.IsZero() {
			ts = r.Timestamp.UTC().Format(timeLayout)
		}
		key := oneLine(r.Key, r.KeySize, v.mode)
		if len(key) > 40 {
			key = key[:40] + "…"
		}
		tb.rows = append(tb.rows, []cell{num(r.Offset), txt(ts), txt(key), txt(oneLine(r.Value, r.ValueSize, v.mode)),
			txt(sizeText(r.ValueSize)), intCell(len(r.Headers))})
	}
	tb.from, tb.to = v.list.cur.window(len(tb.rows), max(1, h-3))
	if !e.once && !v.follow && len(recs) > 0 {
		tb.hint = " (↑/↓ past either end reads more)"
	}
	out = append(out, tb.render(st, w)...)
	switch {
	case len(v.records) == 0 && v.loading == "" && v.err == "":
		out = append(out, "  no records here (o: go to an offset or a time; f: follow)")
	case len(recs) == 0 && len(v.records) > 0:
		out = append(out, fmt.Sprintf("  no loaded record matches %q (↑/↓ reads more; esc clears the filter)", v.list.filter))
	}
	return fitAll(out, w)
}

// recordPage is one record in full: key, headers and value, decoded as
// the browser was (d changes it here too).
type recordPage struct {
	topic     string
	partition int32
	rec       Record
	mode      decodeMode
	top       int
}

func (v *recordPage) crumb() string { return fmt.Sprintf("Offset %d", v.rec.Offset) }

func (v *recordPage) content(st styles, w int) []string {
	r := v.rec
	ts := "-"
	if !r.Timestamp.IsZero() {
		ts = r.Timestamp.UTC().Format(timeLayout) + " UTC"
	}
	out := []string{joinParts(st.title.Render(tp{v.topic, v.partition}.String()), fmt.Sprintf("offset %d", r.Offset), ts, v.mode.String()), ""}
	out = append(out, st.header.Render("Key")+" ("+bytesText(r.KeySize)+")")
	for _, l := range detailLines(r.Key, r.KeySize, v.mode, w-2) {
		out = append(out, "  "+l)
	}
	out = append(out, "", st.header.Render("Headers")+fmt.Sprintf(" (%d)", len(r.Headers)))
	for _, h := range r.Headers {
		val := oneLine(h.Value, len(h.Value), v.mode)
		if v.mode == decodeHex {
			val += " (hex)" // the key and value below say so in their dump's layout
		}
		out = append(out, "  "+escapeText([]byte(h.Key))+": "+val)
	}
	out = append(out, "", st.header.Render("Value")+" ("+bytesText(r.ValueSize)+")")
	for _, l := range detailLines(r.Value, r.ValueSize, v.mode, w-2) {
		out = append(out, "  "+l)
	}
	return out
}

func (v *recordPage) sync(*env)                  {}
func (v *recordPage) filterable(*env) *listState { return nil }

func (v *recordPage) hints(k keyMap) []key.Binding {
	return []key.Binding{withHelp(k.Down, "scroll"), k.Decode}
}

func (v *recordPage) update(msg tea.Msg, e *env) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if key.Matches(km, e.k.Decode) {
		v.mode = (v.mode + 1) % numDecodeModes
		return nil
	}
	v.top = scrollKey(km, e.k, v.top)
	return nil
}

func (v *recordPage) scroll(e *env, w, h int) {
	n := len(v.content(e.st, w))
	v.top = min(v.top, max(0, n-h+1))
}

func (v *recordPage) render(e *env, w, h int) []string {
	lines := v.content(e.st, w)
	if len(lines) <= h {
		return fitAll(lines, w)
	}
	top := min(v.top, max(0, len(lines)-h+1))
	shown := append([]string{}, lines[top:min(len(lines), top+h-1)]...)
	return fitAll(append(shown, e.st.dim.Render(moreLine(top, len(lines)-top-len(shown)))), w)
}
