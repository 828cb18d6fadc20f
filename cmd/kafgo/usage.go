package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kafgo/broker/config"
)

// useKafkaFlagStyle makes every command's help and flag errors read the
// way Kafka's tools (joptsimple) read, from the root so that no command
// can forget it.
func useKafkaFlagStyle(root *cobra.Command) {
	cobra.AddTemplateFunc("kafgoFlagUsages", flagUsages)
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "kafgoFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "kafgoFlagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
	root.SetFlagErrorFunc(flagError)
}

// flagUsages is pflag's flag table, except that a flag whose value is
// optional (--state, --compression-codec) reads "--state [string]" as
// joptsimple prints "[String]", instead of pflag's
// `--state string[="<the value meaning no value>"]`.
func flagUsages(fs *pflag.FlagSet) string {
	shown := pflag.NewFlagSet("usage", pflag.ContinueOnError)
	shown.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		c := *f
		if c.NoOptDefVal != "" && c.Value.Type() != "bool" {
			c.NoOptDefVal = ""
			c.Value = optionalValue{f.Value}
		}
		shown.AddFlag(&c)
	})
	return shown.FlagUsages()
}

// optionalValue only renders: its type name is what the usage line shows.
type optionalValue struct{ pflag.Value }

func (v optionalValue) Type() string { return "[" + v.Value.Type() + "]" }

// flagError rewords a flag value pflag could not parse. pflag says
// `invalid argument "abc" for "--partitions" flag: strconv.ParseInt:
// parsing "abc": invalid syntax`; an operator should read
// `invalid value "abc" for --partitions: not an integer`. A mistyped flag
// name gets the closest of cmd's flags as a did-you-mean, as a mistyped key
// in a broker's config file does.
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := config.Suggest(unknown.GetSpecifiedName(), names); s != "" {
			return fmt.Errorf("%w (did you mean --%s?)", err, s)
		}
		return err
	}
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	f := bad.GetFlag()
	return fmt.Errorf("invalid value %q for --%s: %s", bad.GetValue(), f.Name, valueProblem(f.Value.Type(), bad.Unwrap()))
}

// valueProblem says what is wrong with a value of a flag of type typ.
func valueProblem(typ string, cause error) string {
	outOfRange := errors.Is(cause, strconv.ErrRange)
	switch typ {
	case "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint":
		if !outOfRange {
			return "not an integer"
		}
		bits := strings.TrimLeft(typ, "uint")
		if bits == "" {
			bits = strconv.Itoa(strconv.IntSize)
		}
		if strings.HasPrefix(typ, "u") {
			return "not an unsigned " + bits + "-bit integer"
		}
		return "out of range for a " + bits + "-bit integer"
	case "float32", "float64":
		if outOfRange {
			return "out of range"
		}
		return "not a number"
	case "bool":
		return "not true or false"
	case "duration":
		return "not a duration (such as 500ms, 2s or 1m)"
	case "intSlice", "int32Slice", "int64Slice":
		return "not a comma-separated list of integers"
	}
	return cause.Error()
}
