package schemas

import "testing"

// BenchmarkCompile compiles each schema as Compile does for every check
// that needs it: the pipeline schema when the compiled check refuses a
// pipeline definition, the event schema on the first line the compiled
// fast path rejects. Most of it is validating the schema against the
// 2020-12 meta-schema, which jsonschema v5 does on every compile and offers
// no setting to skip; a valid definition and a valid log compile no schema
// (docs/action.md, where start-up goes).
func BenchmarkCompile(b *testing.B) {
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
