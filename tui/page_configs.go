package tui

import (
	"context"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// configsPage lists a topic's or a broker's configs (DescribeConfigs)
// with where each value comes from; dynamic overrides are marked, and
// enter edits one (IncrementalAlterConfigs, behind a confirmation).
type configsPage struct {
	res     ConfigResource
	id      int
	list    listState
	entries []ConfigEntry
	loaded  bool
	loading bool
	err     string
}

// overrideMark precedes the name of a config set at run time.
const overrideMark = "*"

type configsMsg struct {
	id      int
	entries []ConfigEntry
	err     error
}

func (m configsMsg) pageID() int { return m.id }

// openConfigs opens the configs of r, if the source can describe them.
func openConfigs(e *env, r ConfigResource) tea.Cmd {
	if _, ok := e.src.(ConfigSource); !ok {
		e.flash = "this source cannot describe configs"
		return nil
	}
	e.openPage(&configsPage{res: r})
	return nil
}

func (v *configsPage) crumb() string { return "Configs" }

func (v *configsPage) open(e *env, id int) tea.Cmd {
	v.id = id
	return v.reload(e, id)
}

func (v *configsPage) reload(e *env, id int) tea.Cmd {
	cs, ok := e.src.(ConfigSource)
	if !ok {
		return nil
	}
	v.loading = true
	res, ctx, timeout := v.res, e.ctx, e.timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		entries, err := cs.Configs(ctx, res)
		return configsMsg{id: id, entries: entries, err: err}
	}
}

func (v *configsPage) listing(e *env) listing {
	st := e.st
	// A name is what the operator looks for: the value and the source give
	// way first.
	cols := []column{{title: "NAME", flex: true}, {title: "VALUE", flex: true, yields: true}, {title: "SOURCE", flex: true, yields: true}}
	var rows []row
	for _, c := range v.entries {
		name := "  " + c.Name
		var nameCell cell
		if c.Dynamic() {
			nameCell = styled(overrideMark+" "+c.Name, st.warn)
		} else {
			nameCell = txt(name)
		}
		val := txt(c.Value)
		switch {
		case c.Sensitive:
			val = styled("(sensitive)", st.dim)
		case c.Null:
			val = styled("null", st.dim)
		}
		if n, ok := parseNumber(c.Value); ok && !c.Sensitive {
			val.numeric, val.value = true, n
		}
		src := txt(c.Source)
		if c.ReadOnly {
			src.text += " (read-only)"
		}
		rows = append(rows, row{key: c.Name, cells: []cell{nameCell, val, src}})
	}
	return v.list.apply(cols, rows)
}

func (v *configsPage) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *configsPage) filterable(*env) *listState { return &v.list }

func (v *configsPage) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "edit"), k.Filter, k.Sort, k.Refresh}
}

func (v *configsPage) update(msg tea.Msg, e *env) tea.Cmd {
	switch msg := msg.(type) {
	case configsMsg:
		v.loading, v.loaded = false, true
		if msg.err != nil {
			v.err = msg.err.Error()
			return nil
		}
		v.err, v.entries = "", msg.entries
		v.sync(e)
	case pageNote:
		return v.reload(e, v.id)
	case tea.KeyMsg:
		ls := v.listing(e)
		if v.list.key(msg, e.k, ls) {
			return nil
		}
		if key.Matches(msg, e.k.Open, e.k.EditConfig) {
			if r, ok := v.list.selected(ls); ok {
				for _, c := range v.entries {
					if c.Name == r.key {
						askAlterConfig(e, v.res, c, v.id)
					}
				}
			}
		}
	}
	return nil
}

func (v *configsPage) scroll(e *env, _, h int) { v.list.scroll(v.listing(e), max(1, h-3)) }

func (v *configsPage) render(e *env, w, h int) []string {
	st := e.st
	ls := v.listing(e)
	dynamic := 0
	for _, c := range v.entries {
		if c.Dynamic() {
			dynamic++
		}
	}
	title := joinParts("Configs of "+st.title.Render(v.res.String()), plural(len(v.entries), "config", "configs"),
		countIf(dynamic, "dynamic override"+map[bool]string{true: "", false: "s"}[dynamic == 1]+" ("+overrideMark+")", st.warn.Render))
	out := []string{listSummary(&v.list, ls, st, title)}
	switch {
	case v.err != "":
		out = append(out, st.bad.Render(v.err))
	case v.loading:
		out = append(out, st.dim.Render("loading…"))
	default:
		out = append(out, "")
	}
	if !v.loaded {
		return fitAll(out, w)
	}
	out = append(out, v.list.table(ls, max(1, h-3)).render(st, w)...)
	if len(ls.rows) == 0 {
		out = append(out, "  no configs")
	}
	return fitAll(out, w)
}

func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
