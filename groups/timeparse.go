package groups

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDatetime parses --to-datetime: yyyy-MM-ddTHH:mm:ss[.SSS] with an
// optional zone (Z, ±HH:mm, ±HHmm or ±HH). Like Kafka's Utils.getDateTime,
// a time without a zone is UTC.
func ParseDatetime(s string) (time.Time, error) {
	date, clock, ok := strings.Cut(s, "T")
	if !ok {
		return time.Time{}, fmt.Errorf("Error parsing timestamp. It does not contain a 'T' according to ISO8601 format: %s", s)
	}
	zone := ""
	if i := strings.IndexAny(clock, "Z+-"); i >= 0 {
		clock, zone = clock[:i], clock[i:]
	}
	layout := "2006-01-02T15:04:05"
	if strings.Contains(clock, ".") {
		layout += ".000"
	}
	loc := time.UTC
	if zone != "" && zone != "Z" {
		z := strings.ReplaceAll(zone[1:], ":", "")
		if len(z) == 2 {
			z += "00"
		}
		if len(z) != 4 {
			return time.Time{}, fmt.Errorf("Error parsing timestamp: bad zone %q in %s", zone, s)
		}
		h, err1 := strconv.Atoi(z[:2])
		m, err2 := strconv.Atoi(z[2:])
		if err1 != nil || err2 != nil {
			return time.Time{}, fmt.Errorf("Error parsing timestamp: bad zone %q in %s", zone, s)
		}
		off := h*3600 + m*60
		if zone[0] == '-' {
			off = -off
		}
		loc = time.FixedZone(zone, off)
	}
	t, err := time.ParseInLocation(layout, date+"T"+clock, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("Error parsing timestamp %s: %w", s, err)
	}
	return t, nil
}

// ParseISODuration parses java.time.Duration's form PnDTnHnMn.nS (with an
// optional leading sign), which is what --by-duration takes.
func ParseISODuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("Text cannot be parsed to a Duration: %s", s)
	in := strings.ToUpper(s)
	neg := false
	if in != "" && (in[0] == '-' || in[0] == '+') {
		neg = in[0] == '-'
		in = in[1:]
	}
	if !strings.HasPrefix(in, "P") || len(in) < 3 {
		return 0, bad
	}
	in = in[1:]
	var d time.Duration
	inTime := false
	units := 0
	for in != "" {
		if in[0] == 'T' {
			if inTime {
				return 0, bad
			}
			inTime = true
			in = in[1:]
			if in == "" {
				return 0, bad
			}
			continue
		}
		i := 0
		for i < len(in) && (in[i] == '-' || in[i] == '+' || in[i] == '.' || (in[i] >= '0' && in[i] <= '9')) {
			i++
		}
		if i == 0 || i == len(in) {
			return 0, bad
		}
		num, unit := in[:i], in[i]
		in = in[i+1:]
		var scale time.Duration
		switch {
		case unit == 'D' && !inTime:
			scale = 24 * time.Hour
		case unit == 'H' && inTime:
			scale = time.Hour
		case unit == 'M' && inTime:
			scale = time.Minute
		case unit == 'S' && inTime:
			scale = time.Second
		default:
			return 0, bad
		}
		if unit != 'S' && strings.Contains(num, ".") {
			return 0, bad
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, bad
		}
		d += time.Duration(f * float64(scale))
		units++
	}
	if units == 0 {
		return 0, bad
	}
	if neg {
		d = -d
	}
	return d, nil
}
