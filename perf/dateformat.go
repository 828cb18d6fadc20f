package perf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultDateFormat is kafka-consumer-perf-test's --date-format default.
const DefaultDateFormat = "yyyy-MM-dd HH:mm:ss:SSS"

// dateFormat renders times with a java.text.SimpleDateFormat pattern, so
// that --date-format takes the patterns operators already pass to Kafka.
type dateFormat struct {
	tokens []dateToken
	loc    *time.Location
}

type dateToken struct {
	letter  byte // 0 for literal text
	count   int
	literal string
}

// parseDateFormat compiles a SimpleDateFormat pattern. Supported letters:
// y M d H h k K m s S a E z Z X; text in single quotes is literal and ”
// is a quote.
func parseDateFormat(pattern string, loc *time.Location) (*dateFormat, error) {
	df := &dateFormat{loc: loc}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			for {
				if j >= len(pattern) {
					return nil, fmt.Errorf("perf: unterminated quote in date format %q", pattern)
				}
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(pattern[j])
				j++
			}
			if j == i+1 {
				lit.WriteByte('\'') // '' outside quotes is one quote
			}
			df.tokens = append(df.tokens, dateToken{literal: lit.String()})
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !strings.ContainsRune("yMdHhkKmsSaEzZX", rune(c)) {
				return nil, fmt.Errorf("perf: unsupported letter %q in date format %q", c, pattern)
			}
			j := i
			for j < len(pattern) && pattern[j] == c {
				j++
			}
			df.tokens = append(df.tokens, dateToken{letter: c, count: j - i})
			i = j
		default:
			df.tokens = append(df.tokens, dateToken{literal: string(c)})
			i++
		}
	}
	return df, nil
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

func (df *dateFormat) format(t time.Time) string {
	t = t.In(df.loc)
	var b strings.Builder
	for _, tok := range df.tokens {
		n := tok.count
		switch tok.letter {
		case 0:
			b.WriteString(tok.literal)
		case 'y':
			if n == 2 {
				b.WriteString(pad(t.Year()%100, 2))
			} else {
				b.WriteString(pad(t.Year(), n))
			}
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(t.Month().String())
			case n == 3:
				b.WriteString(t.Month().String()[:3])
			default:
				b.WriteString(pad(int(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(t.Day(), n))
		case 'H':
			b.WriteString(pad(t.Hour(), n))
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			b.WriteString(pad(h, n))
		case 'K':
			b.WriteString(pad(t.Hour()%12, n))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, n))
		case 'm':
			b.WriteString(pad(t.Minute(), n))
		case 's':
			b.WriteString(pad(t.Second(), n))
		case 'S':
			b.WriteString(pad(t.Nanosecond()/int(time.Millisecond), n))
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			if n >= 4 {
				b.WriteString(t.Weekday().String())
			} else {
				b.WriteString(t.Weekday().String()[:3])
			}
		case 'z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'Z':
			b.WriteString(t.Format("-0700"))
		case 'X':
			switch {
			case n == 1:
				b.WriteString(zoneX(t, "-07"))
			case n == 2:
				b.WriteString(zoneX(t, "-0700"))
			default:
				b.WriteString(zoneX(t, "-07:00"))
			}
		}
	}
	return b.String()
}

// zoneX is SimpleDateFormat's ISO-8601 zone: "Z" for UTC.
func zoneX(t time.Time, layout string) string {
	if _, off := t.Zone(); off == 0 {
		return "Z"
	}
	return t.Format(layout)
}
