package checker

import (
	"archive/zip"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goZoneData returns the zone data Go itself ships (lib/time/zoneinfo.zip,
// from which time/tzdata is generated), so that a test sees the zones as
// greenlight's binaries and wasm builds do on a machine without a zone
// database, whatever this machine has.
func goZoneData(t *testing.T) map[string][]byte {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	zr, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	data := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		data[f.Name] = b
	}
	return data
}

// TestCronSlotsGoZoneData: with Go's own zone data, in which the periods
// after a zone's last listed change come from its rule and Go gives the last
// period of a leap year an end a day early, next still finds the slot the
// minute-by-minute reference finds, around the ends of leap and common
// years and in a summer past every listed change. Before zoneAt checked the bounds, next never
// returned for "30 2 * * *" in Europe/Berlin after 2024-12-31T00:00:00Z.
func TestCronSlotsGoZoneData(t *testing.T) {
	data := goZoneData(t)
	ats := []time.Time{
		time.Date(2024, 12, 30, 22, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 22, 0, 0, 0, time.UTC),
		time.Date(2025, 12, 31, 22, 0, 0, 0, time.UTC), time.Date(2028, 12, 31, 1, 0, 0, 0, time.UTC),
		time.Date(2040, 6, 15, 12, 0, 0, 0, time.UTC),
	}
	for _, zone := range dstZones {
		for _, expr := range dstCrons {
			s := dstSchedule(t, expr, zone)
			if zone != "UTC" {
				loc, err := time.LoadLocationFromTZData(zone, data[zone])
				if err != nil {
					t.Fatal(err)
				}
				s.loc = loc
			}
			for _, at := range ats {
				want := bruteSlots(t, s, at.Add(time.Minute), at.Add(8*24*time.Hour))
				done := make(chan time.Time, 1)
				go func() {
					got, _ := s.next(at)
					done <- got
				}()
				select {
				case got := <-done:
					if len(want) == 0 || got.Format(time.RFC3339) != want[0] {
						t.Errorf("%s in %s after %s: next %s, reference %v", expr, zone, at.Format(time.RFC3339), got.Format(time.RFC3339), want)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("%s in %s after %s: next has not returned after 20 s", expr, zone, at.Format(time.RFC3339))
				}
			}
		}
	}
}
