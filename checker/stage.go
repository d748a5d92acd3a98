package checker

import (
	"fmt"
	"strconv"

	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// StageID names a stage: an integer id >= 1 (Str empty) or a string id
// matching ^[A-Za-z][A-Za-z0-9_.-]{0,127}$ (Int zero). The zero StageID is
// not a valid stage. StageID is comparable and usable as a map key; its
// String method renders it as a person writes it (2, or silver), and its
// JSON form is a number or a string, as the schemas define stage ids.
type StageID = eventline.StageID

// IntStage returns the integer stage id n.
func IntStage(n int64) StageID { return StageID{Int: n} }

// StrStage returns the string stage id s.
func StrStage(s string) StageID { return StageID{Str: s} }

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
		if err != nil || n < 1 || n > eventline.MaxStageInt {
			return StageID{}, fmt.Errorf("stage id %s is out of range (1..%d)", item, eventline.MaxStageInt)
		}
		return IntStage(n), nil
	}
	if !eventline.ValidStageString(item) {
		return StageID{}, fmt.Errorf("stage id %q must start with a letter and hold only letters, digits, _ . - (at most 128 characters)", item)
	}
	return StrStage(item), nil
}
