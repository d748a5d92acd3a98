package checker

import "testing"

// TestParseTimeUTCRange: --now and the action's now input follow the same
// bound, with a message that names it.
func TestParseTimeUTCRange(t *testing.T) {
	if _, err := ParseTime("0001-01-01T00:00:00Z"); err != nil {
		t.Errorf("0001-01-01T00:00:00Z: %v", err)
	}
	_, err := ParseTime("0000-01-01T00:30:00+01:00")
	want := `"0000-01-01T00:30:00+01:00" is outside the years 0001 to 9999 in UTC (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z), the instants an RFC 3339 time in UTC can write`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
