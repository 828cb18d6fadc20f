package config

import "sort"

// brokerSynonyms lists the broker keys that set the same thing as name,
// highest precedence first (Kafka's DynamicBrokerConfig.brokerConfigSynonyms).
func brokerSynonyms(name string) []string {
	switch name {
	case "log.roll.ms", "log.roll.hours":
		return []string{"log.roll.ms", "log.roll.hours"}
	case "log.roll.jitter.ms", "log.roll.jitter.hours":
		return []string{"log.roll.jitter.ms", "log.roll.jitter.hours"}
	case "log.flush.interval.ms":
		// The scheduler interval is the fallback, not an alternative
		// spelling, so it is a synonym of this key only.
		return []string{"log.flush.interval.ms", "log.flush.scheduler.interval.ms"}
	case "log.retention.ms", "log.retention.minutes", "log.retention.hours":
		return []string{"log.retention.ms", "log.retention.minutes", "log.retention.hours"}
	}
	return []string{name}
}

// layerSynonyms lists where the keys in names are set, layer by layer
// (dynamic per-broker, dynamic default, static, default), each layer in
// names order: the order Kafka's ConfigHelper.configSynonyms uses.
func (b *Broker) layerSynonyms(names []string, sensitive bool) []Synonym {
	l := b.ls()
	var out []Synonym
	add := func(m map[string]string, src Source) {
		for _, n := range names {
			if v, ok := m[n]; ok {
				if sensitive {
					v = ""
				}
				out = append(out, Synonym{Name: n, Value: v, Source: src})
			}
		}
	}
	add(l.dynBroker, DynamicBrokerConfig)
	add(l.dynDefault, DynamicDefaultBrokerConfig)
	add(l.static, StaticBrokerConfig)
	for _, n := range names {
		if d := brokerIndex[n]; d != nil && !d.Nullable {
			v := d.Default
			if sensitive {
				v = ""
			}
			out = append(out, Synonym{Name: n, Value: v, Source: DefaultConfig})
		}
	}
	return out
}

// describeBroker builds the DescribeConfigs entry of one broker key.
func (b *Broker) describeBroker(d *Def) Value {
	syn := b.layerSynonyms(brokerSynonyms(d.Name), d.Sensitive)
	// As Kafka does, the list starts at the first entry for the described
	// key itself: describing log.retention.hours does not claim the value
	// comes from a log.retention.ms set elsewhere.
	for len(syn) > 0 && syn[0].Name != d.Name {
		syn = syn[1:]
	}
	if len(syn) == 0 {
		syn = nil
	}
	v := Value{
		Name:       d.Name,
		Source:     DefaultConfig,
		Sensitive:  d.Sensitive,
		ReadOnly:   !d.Dynamic,
		Synonyms:   syn,
		Type:       d.Type.String(),
		ConfigType: d.Type,
		Doc:        d.Doc,
	}
	if len(syn) > 0 {
		v.Source = syn[0].Source
	}
	val, _, ok := b.Get(d.Name)
	switch {
	case d.Sensitive || !ok:
		v.Null = true
	default:
		v.Value = val
	}
	return v
}

// Values describes every broker key, sorted by name, as DescribeConfigs
// answers for this broker's resource: the effective value, its source,
// synonyms in precedence order, sensitivity (password values are never
// returned) and whether the key is read-only.
func (b *Broker) Values() []Value {
	out := make([]Value, 0, len(BrokerDefs))
	for _, name := range BrokerNames() {
		out = append(out, b.describeBroker(brokerIndex[name]))
	}
	return out
}

// Describe describes one broker key; ok is false for an unknown key.
func (b *Broker) Describe(name string) (Value, bool) {
	d, ok := brokerIndex[name]
	if !ok {
		return Value{}, false
	}
	return b.describeBroker(d), true
}

// DescribeTopic describes every topic key, sorted by name, for a topic
// with the given overrides, as DescribeConfigs answers for a topic: the
// effective value; source DYNAMIC_TOPIC_CONFIG for an override, else the
// source of the broker synonym that supplies the value, else DEFAULT_CONFIG;
// and the synonyms: the override, then the broker keys layer by layer.
// Overrides that fail validation are described as given; validate them with
// ValidateTopicOverrides first.
func (b *Broker) DescribeTopic(overrides map[string]string) []Value {
	ov := make(map[string]string, len(overrides))
	for k, v := range overrides {
		if d, ok := topicIndex[k]; ok {
			if cv, err := d.canonical(v); err == nil {
				v = cv
			}
		}
		ov[k] = v
	}
	out := make([]Value, 0, len(TopicDefs))
	for i := range TopicDefs {
		d := &TopicDefs[i]
		var syn []Synonym
		if v, ok := ov[d.Name]; ok {
			syn = append(syn, Synonym{Name: d.Name, Value: v, Source: DynamicTopicConfig})
		}
		if d.BrokerSynonym != "" {
			// Unlike Kafka, no leading entries are dropped here: a topic
			// whose retention comes from log.retention.hours says so, where
			// Kafka would report DEFAULT_CONFIG with no synonyms.
			syn = append(syn, b.layerSynonyms(brokerSynonyms(d.BrokerSynonym), false)...)
		}
		val, _ := b.topicValue(d, ov)
		v := Value{
			Name:       d.Name,
			Value:      val,
			Source:     DefaultConfig,
			Synonyms:   syn,
			Type:       d.Type.String(),
			ConfigType: d.Type,
			Doc:        d.Doc,
		}
		if len(syn) > 0 {
			v.Source = syn[0].Source
		}
		out = append(out, v)
	}
	return out
}

// TopicNames returns every topic key, sorted.
func TopicNames() []string {
	names := make([]string, len(TopicDefs))
	for i, d := range TopicDefs {
		names[i] = d.Name
	}
	sort.Strings(names)
	return names
}
