package pact

import (
	"maps"

	"github.com/ngkit/ngkit/pkg/record"
)

// actorAttrs are the actor's attributes the prompt gives: the persona,
// and the item's actor country, age and gender (the PACT card's).
func actorAttrs(rec *record.Record) map[string]string {
	it := rec.PactItem
	if it.ActorCountry == "" && it.ActorAge == "" && it.ActorGender == "" {
		return rec.Persona
	}
	p := maps.Clone(rec.Persona)
	if p == nil {
		p = map[string]string{}
	}
	for k, v := range map[string]string{"country": it.ActorCountry, "age": it.ActorAge, "gender": it.ActorGender} {
		if v != "" {
			p[k] = v
		}
	}
	return p
}

// receiverAttrs are the receiver's: country, age, gender.
func receiverAttrs(it *record.PactItem) map[string]string {
	p := map[string]string{}
	for k, v := range map[string]string{"country": it.ReceiverCountry, "age": it.ReceiverAge, "gender": it.ReceiverGender} {
		if v != "" {
			p[k] = v
		}
	}
	return p
}
