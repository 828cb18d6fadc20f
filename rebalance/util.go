package rebalance

import (
	"fmt"
	"strconv"
	"strings"
)

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func cutEq(s string) (string, string, bool) { return strings.Cut(s, "=") }

// ParseBrokerIDs reads a comma-separated list of broker ids.
func ParseBrokerIDs(flag, v string) ([]int32, error) {
	var out []int32
	for _, s := range splitList(v) {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("--%s %s: %q is not a broker id", flag, v, s)
		}
		out = append(out, int32(n))
	}
	return out, nil
}

// human prints a size the way operators read it: B, KiB, MiB, GiB with
// one decimal.
func human(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + units[i]
}
