package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every binding; the help line is generated from it, so a key
// and its help text cannot drift apart.
type keyMap struct {
	Next, Prev                   key.Binding
	Brokers, Topics, Parts, Grps key.Binding
	Txns                         key.Binding
	Up, Down, PageUp, PageDown   key.Binding
	Home, End                    key.Binding
	DetailUp, DetailDown         key.Binding
	Open, Back                   key.Binding
	PrevTopic, NextTopic         key.Binding
	Refresh, Help, Quit          key.Binding
}

func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Next:       b("tab/→", "next view", "tab", "right", "l"),
		Prev:       b("S-tab/←", "prev view", "shift+tab", "left", "h"),
		Brokers:    b("1", "brokers", "1"),
		Topics:     b("2", "topics", "2"),
		Parts:      b("3", "partitions", "3"),
		Grps:       b("4", "groups", "4"),
		Txns:       b("5", "transactions", "5"),
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
		PageUp:     b("pgup", "page up", "pgup", "ctrl+b"),
		PageDown:   b("pgdn", "page down", "pgdown", "ctrl+f", " "),
		Home:       b("g/home", "first", "home", "g"),
		End:        b("G/end", "last", "end", "G"),
		DetailUp:   b("K", "offsets up", "K", "shift+up"),
		DetailDown: b("J", "offsets down", "J", "shift+down"),
		Open:       b("enter", "open topic", "enter"),
		Back:       b("esc", "back to topics", "esc"),
		PrevTopic:  b("[", "prev topic", "["),
		NextTopic:  b("]", "next topic", "]"),
		Refresh:    b("r", "refresh", "r"),
		Help:       b("?", "more keys", "?"),
		Quit:       b("q", "quit", "q", "ctrl+c"),
	}
}

// short is the one-line help under a view: the keys that do something
// there.
func (k keyMap) short(v View) []key.Binding {
	out := []key.Binding{k.Next, k.Up, k.Down}
	switch v {
	case ViewTopics:
		out = append(out, k.Open)
	case ViewPartitions:
		out = append(out, k.PrevTopic, k.NextTopic, k.Back)
	case ViewGroups:
		out = append(out, k.DetailDown, k.DetailUp)
	}
	return append(out, k.Refresh, k.Help, k.Quit)
}

// FullHelp is shown after "?".
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.Brokers, k.Topics, k.Parts, k.Grps, k.Txns},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
		{k.DetailUp, k.DetailDown, k.Open, k.Back, k.PrevTopic, k.NextTopic},
		{k.Refresh, k.Help, k.Quit},
	}
}
