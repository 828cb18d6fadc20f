package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// OverrideFlag is the repeatable key=value flag, named after
// kafka-server-start's --override.
const OverrideFlag = "override"

// FlagValues holds the broker flags registered on a flag set.
type FlagValues struct {
	fs        *pflag.FlagSet
	values    map[string]*flagValue
	overrides []string
}

// flagValue is a pflag.Value that keeps the raw text: values are
// validated together in Overrides, where errors can name the flag.
type flagValue struct {
	def *Def
	raw string
}

func (v *flagValue) String() string { return v.raw }
func (v *flagValue) Set(s string) error {
	v.raw = s
	return nil
}

// TakesFollowingWord tells the command line's reader (cmd/kafgo) that a
// boolean key given as "--<key> <value>" takes the following word as its
// value, as the README promises for every key: pflag gives a boolean with
// an optional value only "--<key>=<value>" and would leave "false" as a
// stray argument. broker serve takes no arguments, so a word after a
// boolean key can only be its value; a bad one is refused by Validate,
// naming the flag.
func (v *flagValue) TakesFollowingWord() bool { return v.def.Type == TypeBoolean }

// Type names the value in help; "bool" makes pflag print a boolean flag
// without a value placeholder.
func (v *flagValue) Type() string {
	if v.def.Type == TypeBoolean {
		return "bool"
	}
	return v.def.Type.String()
}

// RegisterFlags adds one --<key> flag per broker key (--log.dirs,
// --num.partitions, ...) and a repeatable --override key=value to fs.
// Boolean flags may be given bare (--delete.topic.enable means true), or
// with a value as --<key>=<value> or --<key> <value> (the latter through
// TakesFollowingWord).
func RegisterFlags(fs *pflag.FlagSet) *FlagValues {
	fv := &FlagValues{fs: fs, values: map[string]*flagValue{}}
	for i := range BrokerDefs {
		d := &BrokerDefs[i]
		v := &flagValue{def: d}
		usage := d.Doc
		if d.Dynamic {
			usage += " [dynamic]"
		}
		f := fs.VarPF(v, d.Name, "", usage)
		// Show Kafka's default in help, not the flag's empty start value:
		// only flags the user sets are passed on (see Overrides).
		f.DefValue = d.Default
		if d.Nullable || d.Sensitive {
			f.DefValue = ""
		}
		if d.Type == TypeBoolean {
			f.NoOptDefVal = "true"
		}
		fv.values[d.Name] = v
	}
	fs.StringArrayVar(&fv.overrides, OverrideFlag, nil,
		"Set a broker config key, key=value; repeatable (like kafka-server-start --override). Values may contain commas.")
	return fv
}

// Overrides returns the broker keys set on the command line: every
// --<key> flag the user gave plus every --override. Unknown keys, bad values
// and a key given twice (in either form) are refused, naming the flag.
func (f *FlagValues) Overrides() (map[string]string, error) {
	out := map[string]string{}
	from := map[string]string{} // key → how it was given, for duplicate errors
	var errs []*Error
	names := make([]string, 0, len(f.values))
	for name := range f.values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !f.fs.Changed(name) {
			continue
		}
		v := f.values[name]
		out[name] = v.raw
		from[name] = "--" + name
	}
	for _, kv := range f.overrides {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		origin := "--" + OverrideFlag
		if !ok || k == "" {
			errs = append(errs, &Error{Key: kv, Value: "", Origin: origin, Err: fmt.Errorf("%w: expected key=value", ErrInvalidValue)})
			continue
		}
		if _, known := lookupDef(k); !known && !isCompatKey(k) {
			e := unknownKeyError(k, v, brokerIndex)
			e.Origin = origin
			errs = append(errs, e)
			continue
		}
		if prev, dup := from[k]; dup {
			e := keyError(k, v, fmt.Errorf("%w: also set by %s", ErrDuplicateKey, prev))
			e.Origin = origin
			errs = append(errs, e)
			continue
		}
		out[k] = v
		from[k] = origin + " " + k
	}
	for k, v := range out {
		d, ok := lookupDef(k)
		if !ok {
			continue // a Kafka key kafgo does not define: compatTranslate decides
		}
		if err := d.Validate(v); err != nil {
			e := err.(*Error)
			if strings.HasPrefix(from[k], "--"+OverrideFlag) {
				e.Origin = "--" + OverrideFlag
			} else {
				e.Origin = from[k]
			}
			errs = append(errs, e)
		}
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// Suggest returns the name among names closest to name when it is close
// enough to be a typo, else "": the did-you-mean of flag errors, with the
// same rule as for mistyped keys in a config file or --override.
func Suggest(name string, names []string) string {
	known := make(map[string]struct{}, len(names))
	for _, n := range names {
		known[n] = struct{}{}
	}
	return suggest(name, known)
}
