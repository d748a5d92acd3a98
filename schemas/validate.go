package schemas

import "errors"

// ErrNumberOutOfRange is Validate's error for an instance holding a number
// the validator cannot represent: jsonschema v5.3.1 converts numbers to
// math/big values and panics (a nil *big.Rat) on an exponent beyond their
// limits, such as 1e1000000000. No field of any greenlight schema allows
// such a number, so the instance does not match.
var ErrNumberOutOfRange = errors.New("a number is outside every range the schema allows")

// ExitNeedsFull is the exit code of the lean build (build tag
// greenlight_lean) when it meets a document whose verdict or message needs
// the JSON Schema validator it leaves out: a line or a pipeline definition
// the compiled fast paths refuse, a job log, an OpenLineage log, a
// snapshot to merge. It exits before writing anything, and the action's
// runner script (action/run.mjs) then runs the full module, so the result
// is the same bytes either way. No greenlight command exits with it
// otherwise (docs/action.md).
const ExitNeedsFull = 3
