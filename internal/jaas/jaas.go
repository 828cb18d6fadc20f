// Package jaas parses the JAAS login-module text Kafka takes in
// sasl.jaas.config (clients) and listener.name.<l>.<mechanism>.sasl.jaas.config
// (brokers):
//
//	<LoginModuleClass> <flag> [<option>=<value> ...];
//
// for example
//
//	org.apache.kafka.common.security.plain.PlainLoginModule required
//	    username="admin" password="admin-secret" user_alice="alice-secret";
//
// The flag is one of required, requisite, sufficient, optional. A value is
// "double quoted" (backslash escapes the next character, \n \t \r as in
// Java's StreamTokenizer), 'single quoted', or a bare word of letters, digits
// and - _ $ . characters. // and /* */ comments are skipped. Several modules
// may follow each other; Kafka's sasl.jaas.config wants exactly one, which
// ParseOne checks.
package jaas

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("jaas: invalid JAAS configuration")

// Module is one login module entry.
type Module struct {
	Class   string // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
	Flag    string // required, requisite, sufficient or optional (lower case)
	Options map[string]string
	Order   []string // option names in the order given
}

// Well-known login module classes.
const (
	PlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	ScramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
)

// Parse parses every login module in s.
func Parse(s string) ([]Module, error) {
	p := &parser{s: s}
	var out []Module
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.kind == tokEOF {
			return out, nil
		}
		m, err := p.module(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
}

// ParseOne parses s and requires exactly one login module, as Kafka's
// JaasConfig does for sasl.jaas.config.
func ParseOne(s string) (Module, error) {
	ms, err := Parse(s)
	if err != nil {
		return Module{}, err
	}
	if len(ms) != 1 {
		return Module{}, fmt.Errorf("%w: JAAS config property contains %d login modules, should be 1 module", ErrSyntax, len(ms))
	}
	return ms[0], nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted
	tokPunct
)

type token struct {
	kind tokKind
	text string
}

type parser struct {
	s   string
	pos int
}

func (p *parser) module(first token) (Module, error) {
	if first.kind != tokWord {
		return Module{}, fmt.Errorf("%w: expected a login module class name, found %q", ErrSyntax, first.text)
	}
	m := Module{Class: first.text, Options: map[string]string{}}
	flag, err := p.next()
	if err != nil {
		return Module{}, err
	}
	switch f := strings.ToLower(flag.text); {
	case flag.kind == tokWord && (f == "required" || f == "requisite" || f == "sufficient" || f == "optional"):
		m.Flag = f
	default:
		return Module{}, fmt.Errorf("%w: invalid control flag %q for login module %s (required, requisite, sufficient or optional)", ErrSyntax, flag.text, m.Class)
	}
	for {
		key, err := p.next()
		if err != nil {
			return Module{}, err
		}
		if key.kind == tokPunct && key.text == ";" {
			return m, nil
		}
		if key.kind != tokWord {
			if key.kind == tokEOF {
				return Module{}, fmt.Errorf("%w: login module %s is not terminated by ';'", ErrSyntax, m.Class)
			}
			return Module{}, fmt.Errorf("%w: expected an option name in login module %s, found %q", ErrSyntax, m.Class, key.text)
		}
		eq, err := p.next()
		if err != nil {
			return Module{}, err
		}
		if eq.kind != tokPunct || eq.text != "=" {
			return Module{}, fmt.Errorf("%w: option %s of login module %s has no '='", ErrSyntax, key.text, m.Class)
		}
		val, err := p.next()
		if err != nil {
			return Module{}, err
		}
		if val.kind != tokWord && val.kind != tokQuoted {
			return Module{}, fmt.Errorf("%w: value not specified for key '%s' in JAAS config", ErrSyntax, key.text)
		}
		if _, dup := m.Options[key.text]; !dup {
			m.Order = append(m.Order, key.text)
		}
		m.Options[key.text] = val.text
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '_' || c == '$' || c == '.' || c >= 0x80
}

// next returns the next token, skipping blanks and comments.
func (p *parser) next() (token, error) {
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			p.pos++
		case strings.HasPrefix(p.s[p.pos:], "//"):
			if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.s)
			}
		case strings.HasPrefix(p.s[p.pos:], "/*"):
			i := strings.Index(p.s[p.pos+2:], "*/")
			if i < 0 {
				return token{}, fmt.Errorf("%w: unterminated /* comment", ErrSyntax)
			}
			p.pos += i + 4
		case c == '"' || c == '\'':
			return p.quoted(c)
		case isWordByte(c):
			start := p.pos
			for p.pos < len(p.s) && isWordByte(p.s[p.pos]) {
				p.pos++
			}
			return token{kind: tokWord, text: p.s[start:p.pos]}, nil
		default:
			p.pos++
			return token{kind: tokPunct, text: string(c)}, nil
		}
	}
	return token{kind: tokEOF}, nil
}

func (p *parser) quoted(q byte) (token, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == q:
			return token{kind: tokQuoted, text: b.String()}, nil
		case c == '\\' && p.pos < len(p.s):
			e := p.s[p.pos]
			p.pos++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(e)
			}
		case c == '\n':
			return token{}, fmt.Errorf("%w: quoted value runs past the end of the line", ErrSyntax)
		default:
			b.WriteByte(c)
		}
	}
	return token{}, fmt.Errorf("%w: unterminated quoted value", ErrSyntax)
}

// Credentials returns the username and password options of m.
func (m Module) Credentials() (user, pass string, ok bool) {
	user, uok := m.Options["username"]
	pass, pok := m.Options["password"]
	return user, pass, uok && pok
}

// PlainUsers returns the user_<name>="<password>" options of m: the users
// Kafka's PlainServerCallbackHandler accepts.
func (m Module) PlainUsers() map[string]string {
	out := map[string]string{}
	for k, v := range m.Options {
		if name, ok := strings.CutPrefix(k, "user_"); ok && name != "" {
			out[name] = v
		}
	}
	return out
}
