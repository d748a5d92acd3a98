package checker

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// StageID names a stage: an integer id >= 1 (Str empty) or a string id
// matching ^[A-Za-z][A-Za-z0-9_.-]{0,127}$ (Int zero). The zero StageID is
// not a valid stage. StageID is comparable and usable as a map key.
type StageID struct {
	Int int64
	Str string
}

// IntStage returns the integer stage id n.
func IntStage(n int64) StageID { return StageID{Int: n} }

// StrStage returns the string stage id s.
func StrStage(s string) StageID { return StageID{Str: s} }

// String renders the id as a person writes it: 2, or silver.
func (s StageID) String() string {
	if s.Str != "" {
		return s.Str
	}
	return strconv.FormatInt(s.Int, 10)
}

// MarshalJSON renders an integer id as a JSON number and a string id as a
// JSON string, as the schemas define stage ids.
func (s StageID) MarshalJSON() ([]byte, error) {
	if s.Str != "" {
		return json.Marshal(s.Str)
	}
	return strconv.AppendInt(nil, s.Int, 10), nil
}

// UnmarshalJSON reads an integer or string stage id; it does not check the
// string pattern (the schema does).
func (s *StageID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*s = StageID{}
		return json.Unmarshal(b, &s.Str)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	v, ok := jsonInteger(string(n))
	if !ok {
		return fmt.Errorf("stage id %s is not an integer", n)
	}
	*s = StageID{Int: v}
	return nil
}

// validStageString reports whether s matches the string stage-id pattern of
// schemas/event.schema.json: ^[A-Za-z][A-Za-z0-9_.-]{0,127}$.
func validStageString(s string) bool {
	if len(s) == 0 || len(s) > 128 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// ParseStageList reads the --stages shorthand: a comma-separated list in which
// an all-digit item is an integer stage id and anything else a string id.
// It returns an error for an empty item, an integer out of range, a string id
// that breaks the pattern, or a repeated id.
func ParseStageList(list string) ([]StageID, error) {
	var ids []StageID
	seen := map[StageID]bool{}
	start := 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) && list[i] != ',' {
			continue
		}
		item := list[start:i]
		start = i + 1
		id, err := parseStageItem(item)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, fmt.Errorf("stage %s is listed twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}

func parseStageItem(item string) (StageID, error) {
	if item == "" {
		return StageID{}, fmt.Errorf("empty stage id in the list (write ids separated by commas, e.g. 1,2)")
	}
	allDigits := true
	for i := 0; i < len(item); i++ {
		if item[i] < '0' || item[i] > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		n, err := strconv.ParseInt(item, 10, 64)
		if err != nil || n < 1 || n > maxStageInt {
			return StageID{}, fmt.Errorf("stage id %s is out of range (1..%d)", item, maxStageInt)
		}
		return IntStage(n), nil
	}
	if !validStageString(item) {
		return StageID{}, fmt.Errorf("stage id %q must start with a letter and hold only letters, digits, _ . - (at most 128 characters)", item)
	}
	return StrStage(item), nil
}
