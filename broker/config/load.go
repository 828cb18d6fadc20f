package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kafgo/internal/javaprops"
)

// Sources are the static config sources of a broker, lowest precedence
// first: the file, the environment, the command line.
type Sources struct {
	// Path is the config file, Java properties (server.properties) or
	// YAML; "" for none.
	Path string
	// Env is the environment (os.Environ() form); KAFKA_<KEY> variables
	// set broker keys (see EnvKey). nil reads none.
	Env []string
	// Overrides are the command line's keys (--<key> flags and --override),
	// which win over the file and the environment.
	Overrides map[string]string
}

// Load reads a config file (Java properties or YAML, see DetectFormat)
// and applies overrides over it, as kafka-server-start's --override applies
// over server.properties. path "" means no file: Kafka's defaults plus
// overrides. File and override values are both static config.
func Load(path string, overrides map[string]string) (*Broker, error) {
	return LoadSources(Sources{Path: path, Overrides: overrides})
}

// LoadSources builds the static config from a file, the environment and
// the command line, in that order of precedence (the command line wins).
func LoadSources(src Sources) (*Broker, error) {
	values := map[string]string{}
	origins := map[string]origin{}
	var prior []*Error
	var notes []Notice
	if src.Path != "" {
		data, err := os.ReadFile(src.Path)
		if err != nil {
			return nil, fmt.Errorf("config: read %s: %w", src.Path, err)
		}
		var entries map[string]entry
		var ferrs []*Error
		if DetectFormat(src.Path, data) == FormatProperties {
			entries, notes, err = flattenProperties(src.Path, data)
		} else {
			entries, ferrs, err = flattenYAML(src.Path, data)
		}
		if err != nil {
			return nil, err
		}
		for k, e := range entries {
			values[k] = e.value
			origins[k] = origin{file: src.Path, line: e.line}
		}
		prior = ferrs
	}
	envValues, envOrigins, envNotes, envErrs := fromEnv(src.Env)
	for k, v := range envValues {
		values[k] = v
		origins[k] = envOrigins[k]
	}
	notes = append(notes, envNotes...)
	prior = append(prior, envErrs...)
	for k, v := range src.Overrides {
		values[k] = v
		origins[k] = origin{source: "override"}
	}
	return parseStatic(values, origins, prior, notes)
}

// Format is a config file's syntax.
type Format int

const (
	FormatYAML Format = iota
	FormatProperties
)

// DetectFormat tells a config file's syntax: by extension (.properties,
// .props and .conf are Java properties, .yaml and .yml YAML), else by
// content: Java properties when the first line that is not blank or a
// comment separates its key with '=' or starts with '!', or when the text
// is not a YAML mapping; YAML otherwise. (A properties file written with
// "key: value" lines and no extension reads as YAML, which means the same
// for such lines, escapes and continuation lines aside.)
func DetectFormat(path string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".properties", ".props", ".conf":
		return FormatProperties
	case ".yaml", ".yml":
		return FormatYAML
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimLeft(line, " \t\f\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '!' {
			return FormatProperties
		}
		if i := strings.IndexAny(line, "=: \t\f"); i >= 0 && line[i] == '=' {
			return FormatProperties
		}
		break
	}
	if _, _, err := flattenYAML("", data); err != nil {
		return FormatProperties
	}
	return FormatYAML
}

// flattenProperties reads a Java properties file as Kafka's
// Utils.loadProps does (java.util.Properties.load on the file's bytes, so
// ISO-8859-1). A key given twice keeps its last value, as in Kafka, and is
// reported. A UTF-8 byte order mark, which Java would make part of the
// first key, is skipped.
func flattenProperties(name string, data []byte) (map[string]entry, []Notice, error) {
	data = []byte(strings.TrimPrefix(string(data), "\xef\xbb\xbf"))
	list, err := javaprops.Entries(javaprops.DecodeLatin1(data))
	if err != nil {
		return nil, nil, fmt.Errorf("config: %s: %w", name, err)
	}
	out := make(map[string]entry, len(list))
	var notes []Notice
	for _, e := range list {
		if prev, dup := out[e.Key]; dup {
			v := e.Value
			if isSensitive(e.Key) {
				v = hidden
			}
			notes = append(notes, Notice{
				Key: e.Key, Value: v, Origin: fmt.Sprintf("%s:%d", name, e.Line), Action: "repeated",
				Detail: fmt.Sprintf("also given on line %d; this later value applies, as in Kafka", prev.line),
			})
		}
		out[e.Key] = entry{value: e.Value, line: e.Line}
	}
	return out, notes, nil
}

// EnvPrefix starts the environment variables that set broker keys.
const EnvPrefix = "KAFKA_"

// envNotConfig are KAFKA_ variables of Kafka's launch scripts and images
// that are not broker keys (the Apache image's KafkaDockerWrapper skips the
// same list, plus KAFKA_JMX_PORT, which its launch script reads).
var envNotConfig = map[string]bool{
	"KAFKA_VERSION": true, "KAFKA_HEAP_OPTS": true, "KAFKA_LOG4J_OPTS": true, "KAFKA_OPTS": true,
	"KAFKA_JMX_OPTS": true, "KAFKA_JVM_PERFORMANCE_OPTS": true, "KAFKA_GC_LOG_OPTS": true,
	"KAFKA_LOG4J_ROOT_LOGLEVEL": true, "KAFKA_LOG4J_LOGGERS": true, "KAFKA_TOOLS_LOG4J_LOGLEVEL": true,
	"KAFKA_JMX_HOSTNAME": true, "KAFKA_JMX_PORT": true, "KAFKA_DEBUG": true,
}

// EnvKey turns an environment variable name into the broker key it sets,
// by the convention of the Apache Kafka and Confluent images: KAFKA_
// prefix, upper case, '.' written '_', '_' written '__' and '-' written
// '___' (KAFKA_LOG_DIRS is log.dirs, KAFKA_LISTENER_NAME_SASL__SSL_... is
// listener.name.sasl_ssl....). ok is false for other variables and for the
// launch scripts' own KAFKA_ variables (KAFKA_HEAP_OPTS, ...).
func EnvKey(name string) (key string, ok bool) {
	rest, ok := strings.CutPrefix(name, EnvPrefix)
	if !ok || rest == "" || envNotConfig[name] {
		return "", false
	}
	k := strings.ReplaceAll(strings.ToLower(rest), "_", ".")
	k = strings.ReplaceAll(k, "...", "-")
	k = strings.ReplaceAll(k, "..", "_")
	return k, true
}

// fromEnv reads broker keys from KAFKA_<KEY> variables. A variable naming
// no key kafgo or Kafka knows is reported and ignored, as Kafka ignores an
// unknown key (the environment is shared with other programs); the
// Bitnami images' KAFKA_CFG_<KEY> form is refused with the name to use,
// since ignoring it would drop a setting the operator meant.
func fromEnv(env []string) (map[string]string, map[string]origin, []Notice, []*Error) {
	values := map[string]string{}
	origins := map[string]origin{}
	var notes []Notice
	var errs []*Error
	sorted := append([]string(nil), env...)
	sort.Strings(sorted)
	for _, kv := range sorted {
		name, value, _ := strings.Cut(kv, "=")
		if envNotConfig[name] {
			notes = append(notes, Notice{Key: name, Value: hidden, Origin: "environment", Action: "ignored",
				Detail: "a setting of Kafka's JVM launch scripts, not a broker key; kafgo is not a JVM"})
			continue
		}
		key, ok := EnvKey(name)
		if !ok {
			continue
		}
		o := origin{source: "env " + name}
		if rest, bitnami := strings.CutPrefix(name, EnvPrefix+"CFG_"); bitnami {
			errs = append(errs, o.apply(&Error{Key: key, Value: value, Err: fmt.Errorf(
				"%w: KAFKA_CFG_<KEY> is the Bitnami images' convention; kafgo reads KAFKA_<KEY> (Apache and Confluent images): set %s%s instead", ErrUnknownKey, EnvPrefix, rest)}))
			continue
		}
		if _, known := lookupDef(key); !known && !isCompatKey(key) {
			detail := "not a broker config key (Kafka too ignores keys it does not know)"
			if s := suggest(key, brokerIndex); s != "" {
				detail += "; did you mean " + s + "?"
			}
			v := value
			if strings.Contains(strings.ToLower(key), "password") || strings.Contains(strings.ToLower(key), "secret") {
				v = hidden
			}
			notes = append(notes, Notice{Key: key, Value: v, Origin: o.String(), Action: "ignored", Detail: detail})
			continue
		}
		values[key] = value
		origins[key] = o
	}
	return values, origins, notes, errs
}
