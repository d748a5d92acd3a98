package render

import (
	"reflect"
	"testing"

	"github.com/greenlight-ci/greenlight/checker"
)

// fill sets every field of the value v points at to something non-zero,
// pointers and slices included, one level of slice element deep.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// shared reports the path of the first pointer or slice that a and b
// share, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for i := range a.Len() {
			if p := shared(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// TestCloneIntoOwnsItsMemory: a run that Select keeps shares no pointer or
// slice with the storage Snapshot.Runs reuses, for every field of the
// report (so that a field added to RunReport without a line in cloneInto
// fails here), whether its storage is new or handed on from another run
// with more, fewer or other fields set.
func TestCloneIntoOwnsItsMemory(t *testing.T) {
	var full checker.RunReport
	fill(reflect.ValueOf(&full).Elem())
	sparse := checker.RunReport{RunID: "r-2", Recovery: checker.Recovery{Steps: []string{}},
		Stages: []checker.StageReport{{Attempts: []checker.AttemptReport{{Attempt: 1}}}, {Attempts: []checker.AttemptReport{}}}}
	var dst checker.RunReport
	for i, src := range []checker.RunReport{full, sparse, full, full, sparse} {
		cloneInto(&dst, &src)
		if p := shared(reflect.ValueOf(src), reflect.ValueOf(dst), "RunReport"); p != "" {
			t.Errorf("copy %d shares %s with the original", i, p)
		}
		if !reflect.DeepEqual(src, dst) {
			t.Errorf("copy %d differs:\n%+v\n%+v", i, dst, src)
		}
	}
}
