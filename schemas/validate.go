package schemas

import (
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ErrNumberOutOfRange is Validate's error for an instance holding a number
// the validator cannot represent: jsonschema v5.3.1 converts numbers to
// math/big values and panics (a nil *big.Rat) on an exponent beyond their
// limits, such as 1e1000000000. No field of any greenlight schema allows
// such a number, so the instance does not match.
var ErrNumberOutOfRange = errors.New("a number is outside every range the schema allows")

// Validate validates inst, in Instance's form, against schema. It returns
// nil when inst matches, the validator's *jsonschema.ValidationError when
// it does not, and ErrNumberOutOfRange instead of the validator's panic on
// a number it cannot represent. Every schema validation of a document read
// from outside (an event, a pipeline definition, a job log record, an
// OpenLineage event, a snapshot) goes through it, so none can crash the
// process.
func Validate(schema *jsonschema.Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = ErrNumberOutOfRange
		}
	}()
	return schema.Validate(inst)
}
