package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every binding; the help line and the help overlay are
// generated from it, so a key and its help text cannot drift apart.
type keyMap struct {
	Next, Prev                 key.Binding
	Tab                        [numViews]key.Binding
	Up, Down, PageUp, PageDown key.Binding
	Move                       key.Binding // Up and Down in one, for the help line
	Home, End                  key.Binding
	Filter, Sort, Reverse      key.Binding
	Open, Back                 key.Binding
	DetailUp, DetailDown       key.Binding
	PrevItem, NextItem         key.Binding
	Configs, Messages          key.Binding
	Warnings, Refresh          key.Binding
	Help, Quit                 key.Binding

	// Actions, each behind a confirm prompt (and off with --read-only).
	CreateTopic, DeleteTopic, AddPartitions key.Binding
	Elect, ResetOffsets, EditConfig         key.Binding
	Rebalance                               key.Binding

	// The message browser.
	GoTo, Follow, Decode key.Binding

	// Prompts.
	Yes, No key.Binding
}

func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := keyMap{
		Next:       b("tab/→/l", "next view", "tab", "right", "l"),
		Prev:       b("S-tab/←/h", "prev view", "shift+tab", "left", "h"),
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
		Move:       b("↑↓", "move"),
		PageUp:     b("pgup", "page up", "pgup", "ctrl+b"),
		PageDown:   b("pgdn", "page down", "pgdown", "ctrl+f", " "),
		Home:       b("g/home", "first", "home", "g"),
		End:        b("G/end", "last", "end", "G"),
		Filter:     b("/", "filter", "/"),
		Sort:       b("s", "sort column", "s"),
		Reverse:    b("S", "reverse sort", "S"),
		Open:       b("enter", "open", "enter"),
		Back:       b("esc/bksp", "back", "esc", "backspace"),
		DetailUp:   b("K", "offsets up", "K", "shift+up"),
		DetailDown: b("J", "offsets down", "J", "shift+down"),
		PrevItem:   b("[", "prev topic", "["),
		NextItem:   b("]", "next topic", "]"),
		Configs:    b("c", "configs", "c"),
		Messages:   b("m", "messages", "m"),
		Warnings:   b("w", "warnings", "w"),
		Refresh:    b("r", "refresh", "r"),
		Help:       b("?", "help", "?"),
		Quit:       b("q", "quit", "q", "ctrl+c"),

		CreateTopic:   b("C", "create topic", "C"),
		DeleteTopic:   b("D", "delete topic", "D"),
		AddPartitions: b("P", "add partitions", "P"),
		Elect:         b("E", "elect preferred leaders", "E"),
		ResetOffsets:  b("R", "reset group offsets", "R"),
		EditConfig:    b("e", "edit config", "e"),
		Rebalance:     b("B", "rebalance (brokers view)", "B"),

		GoTo:   b("o", "go to offset/time", "o"),
		Follow: b("f", "follow (tail -f)", "f"),
		Decode: b("d", "decode text/json/hex", "d"),

		Yes: b("y", "yes", "y", "Y"),
		No:  b("n", "no", "n", "N", "esc"),
	}
	for v := View(0); v < numViews; v++ {
		n := string(rune('1' + v))
		k.Tab[v] = b(n, viewNames[v], n)
	}
	return k
}

// helpSection is one block of the help overlay.
type helpSection struct {
	title string
	keys  []key.Binding
}

// sections is every key, for the help overlay.
func (k keyMap) sections() []helpSection {
	tabs := key.NewBinding(key.WithKeys("1"), key.WithHelp("1-6", "switch to view N"))
	return []helpSection{
		{"Views", []key.Binding{k.Next, k.Prev, tabs, k.Open, k.Back, k.Warnings, k.Refresh, k.Help, k.Quit}},
		{"Lists", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End, k.Filter, k.Sort, k.Reverse}},
		{"Where they apply", []key.Binding{k.PrevItem, k.NextItem, k.DetailDown, k.DetailUp, k.Configs, k.Messages}},
		{"Messages", []key.Binding{k.GoTo, k.Follow, k.Decode, withHelp(k.PrevItem, "prev partition"), withHelp(k.NextItem, "next partition")}},
		{"Actions (confirm with y)", []key.Binding{k.CreateTopic, k.DeleteTopic, k.AddPartitions, k.Elect, k.ResetOffsets, k.EditConfig, k.Rebalance}},
	}
}

// withHelp is b with another description.
func withHelp(b key.Binding, desc string) key.Binding {
	out := b
	out.SetHelp(b.Help().Key, desc)
	return out
}
