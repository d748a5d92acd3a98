package openlineage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/greenlight-ci/greenlight/checker"
	"github.com/greenlight-ci/greenlight/checker/internal/eventline"
)

// rawEvent is the text of one event and where it is: File and Line for
// violations, Pos (1-based, in reading order) for the snapshot.
type rawEvent struct {
	file string
	line int
	pos  int
	data []byte
}

// fault is a reading violation at one place, before any event exists.
type fault struct {
	file string
	line int
	pos  int
	rule checker.RuleID
	msg  string
}

// input is everything read: the events' text, the reading faults, and the
// counts and hash of the bytes for the snapshot's source.
type input struct {
	events []rawEvent
	faults []fault
	lines  int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// readStream reads JSON Lines; or, when the first byte that is not white
// space is '[', one JSON array of events; or, when it is '{' but the line it
// starts is not a whole JSON value, one JSON document over many lines (a
// pretty-printed event), see readDocument.
func readStream(r io.Reader, file string, max int, h hash.Hash) (*input, error) {
	br := bufio.NewReaderSize(eventline.HashingReader(r, h), 64<<10)
	head, _ := br.Peek(br.Size())
	for i, c := range head {
		if isSpace(c) {
			continue
		}
		if c != '[' && (c != '{' || !opensDocument(head[i:])) {
			break
		}
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		if c != '[' {
			return readDocument(data, file, max)
		}
		in := &input{lines: countLines(data)}
		readArray(in, data, file, max)
		return in, nil
	}
	return readLines(br, file, max)
}

// opensDocument tells whether head, which starts with '{', opens a JSON
// document over many lines: its first line is not a whole JSON value. A
// first line longer than head is taken for a JSON Lines event.
func opensDocument(head []byte) bool {
	end := bytes.IndexByte(head, '\n')
	if end < 0 {
		return false
	}
	line := bytes.TrimRight(head[:end], " \t\r")
	return !jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// readDocument reads data, whose first line is not a whole JSON object, as
// one JSON document holding one event, placed at the line where it starts.
// When it is not one either, data is JSON Lines only if some line that
// starts with '{' at its first byte holds a whole JSON object (its faults
// are then the lines'); else it is neither, and that is one invalid_json
// violation rather than one for every line.
func readDocument(data []byte, file string, max int) (*input, error) {
	in := &input{lines: countLines(data)}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	v, err := dec.ReadValue()
	if err == nil {
		v = append([]byte(nil), v...) // the decoder reuses its buffer
		end := dec.InputOffset()
		if _, err = dec.ReadToken(); err == io.EOF {
			start := end - int64(len(v))
			n := 1 + bytes.Count(data[:start], []byte{'\n'})
			if len(v) > max {
				in.faults = append(in.faults, fault{file, n, n, checker.RuleLineTooLong, fmt.Sprintf("the event is %d bytes, over the limit of %d (raise it with --max-line-bytes)", len(v), max)})
			} else {
				in.events = append(in.events, rawEvent{file, n, n, v})
			}
			return in, nil
		} else if err == nil {
			err = errors.New("more than one JSON value")
		}
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimRight(line, "\r")
		if len(line) > 0 && line[0] == '{' && jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			return readLines(bufio.NewReader(bytes.NewReader(data)), file, max)
		}
	}
	n := 1 + bytes.Count(data[:min(dec.InputOffset(), int64(len(data)))], []byte{'\n'})
	msg := strings.TrimPrefix(err.Error(), "jsontext: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "it ends before the JSON value is closed"
	}
	in.faults = append(in.faults, fault{file, n, n, checker.RuleInvalidJSON,
		"this file is not JSON Lines (its first line is not a whole JSON object, and no line is), nor one JSON document (" + msg + "); write one event per line"})
	return in, nil
}

// readLines splits JSON Lines (LF or CRLF); a line longer than max is a
// line_too_long violation and reading goes on with the next line.
func readLines(br *bufio.Reader, file string, max int) (*input, error) {
	in := &input{}
	var buf []byte
	for {
		buf = buf[:0]
		total := 0
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			total += len(chunk)
			if total <= max+2 {
				buf = append(buf, chunk...)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if total == 0 {
			return in, nil
		}
		in.lines++
		n := in.lines
		line := bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte{'\n'}), []byte{'\r'})
		switch {
		case total > max+2 || len(line) > max:
			in.faults = append(in.faults, fault{file, n, n, checker.RuleLineTooLong, fmt.Sprintf("the line is %d bytes, over the limit of %d (raise it with --max-line-bytes)", total, max)})
		case len(bytes.Trim(line, " \t\r")) == 0:
			in.faults = append(in.faults, fault{file, n, n, checker.RuleInvalidJSON, "blank line: every line must hold one JSON object"})
		default:
			in.events = append(in.events, rawEvent{file, n, n, append([]byte(nil), line...)})
		}
		if err == io.EOF {
			return in, nil
		}
	}
}

// readArray splits one JSON array into its elements, each placed at the line
// where it starts. A syntax error ends the array: what follows it cannot be
// placed, so it is one invalid_json violation at the error's line.
func readArray(in *input, data []byte, file string, max int) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:off], []byte{'\n'}) }
	fail := func(err error) {
		n := lineAt(dec.InputOffset())
		msg := "the JSON array is not valid JSON: " + strings.TrimPrefix(err.Error(), "jsontext: ")
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "truncated JSON: the array ends before it is closed"
		}
		in.faults = append(in.faults, fault{file, n, n, checker.RuleInvalidJSON, msg})
	}
	if _, err := dec.ReadToken(); err != nil { // the '['
		fail(err)
		return
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			fail(err)
			return
		}
		start := dec.InputOffset() - int64(len(v))
		n := lineAt(start)
		if len(v) > max {
			in.faults = append(in.faults, fault{file, n, n, checker.RuleLineTooLong, fmt.Sprintf("the event is %d bytes, over the limit of %d (raise it with --max-line-bytes)", len(v), max)})
			continue
		}
		in.events = append(in.events, rawEvent{file, n, n, append([]byte(nil), v...)})
	}
	if _, err := dec.ReadToken(); err != nil { // the ']'
		fail(err)
		return
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		n := lineAt(dec.InputOffset())
		in.faults = append(in.faults, fault{file, n, n, checker.RuleInvalidJSON, "trailing data after the JSON array"})
	}
}

// readDocuments takes one event from each document, in the order given.
func readDocuments(docs []Document, max int, h hash.Hash) *input {
	in := &input{}
	for i, d := range docs {
		h.Write(d.Data)
		in.lines += countLines(d.Data)
		pos := i + 1
		start := 0
		for start < len(d.Data) && isSpace(d.Data[start]) {
			start++
		}
		line := 1 + bytes.Count(d.Data[:start], []byte{'\n'})
		switch {
		case len(d.Data) > max:
			in.faults = append(in.faults, fault{d.Name, line, pos, checker.RuleLineTooLong, fmt.Sprintf("the file is %d bytes, over the limit of %d (raise it with --max-line-bytes)", len(d.Data), max)})
		case start == len(d.Data):
			in.faults = append(in.faults, fault{d.Name, line, pos, checker.RuleInvalidJSON, "the file is empty: it must hold one JSON object"})
		default:
			in.events = append(in.events, rawEvent{d.Name, line, pos, d.Data})
		}
	}
	return in
}

// countLines counts lines as a text editor does: a last line without LF
// counts too.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// keep names the members of an event that greenlight reads: a nil entry
// keeps the member's whole value, a nested keep only those members of an
// object value, or of each object in an array value.
type keep map[string]keep

// eventMembers is the keep of schemas/openlineage-runevent.schema.json,
// plus the data quality assertions of the run and of its input datasets
// (a COMPLETE with a failed one is a failed attempt). That schema
// constrains nothing outside the members it names (no additionalProperties,
// patternProperties or propertyNames anywhere), so it accepts an event
// exactly when it accepts the event's projection onto them; the projection
// spares decoding large facets (query plans, schemas) that nobody reads.
func eventMembers() keep {
	return keep{
		"eventType": nil, "eventTime": nil, "producer": nil,
		"run": {"runId": nil, "facets": {"parent": nil, "errorMessage": nil, "nominalTime": nil,
			"airflow":               {"taskInstance": {"try_number": nil, "map_index": nil}},
			"dataQualityAssertions": assertionMembers}},
		"inputs": {"namespace": nil, "name": nil,
			"facets":      {"dataQualityAssertions": assertionMembers},
			"inputFacets": {"dataQualityAssertions": assertionMembers}},
		"job":     {"namespace": nil, "name": nil, "facets": {"jobType": nil}},
		"dataset": {"namespace": nil, "name": nil},
	}
}

// assertionMembers is the keep of a DataQualityAssertions facet
// (OpenLineage's DataQualityAssertionsDatasetFacet): each assertion's name,
// outcome and column.
var assertionMembers = keep{"assertions": {"assertion": nil, "success": nil, "column": nil}}

// readEvent checks that raw is exactly one JSON object in valid UTF-8
// without a byte-order mark or a duplicate key at any depth, and returns its
// projection onto k.
func readEvent(raw []byte, k keep) ([]byte, checker.RuleID, string) {
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		return nil, checker.RuleInvalidJSON, "the event starts with a byte-order mark; write UTF-8 without a BOM"
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	var out []byte
	var err error
	if kind := dec.PeekKind(); kind != '{' {
		var v jsontext.Value
		if v, err = dec.ReadValue(); err == nil {
			return nil, checker.RuleInvalidJSON, "the event is a JSON " + eventline.JSONKindName(v.Kind()) + ", not an object"
		}
	} else if out, err = project(dec, k, nil); err == nil {
		if _, err = dec.ReadToken(); err == io.EOF {
			return out, "", ""
		} else if err == nil {
			return nil, checker.RuleInvalidJSON, "trailing data after the JSON object"
		}
	}
	kind, msg := eventline.JSONError(err)
	return nil, checker.RuleID(kind), msg
}

// project reads the object at the decoder and appends the members k keeps,
// in their order, to out. Skipped values are still fully checked.
func project(dec *jsontext.Decoder, k keep, out []byte) ([]byte, error) {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return nil, err
	}
	out = append(out, '{')
	n := 0
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		sub, kept := k[name.String()]
		if !kept {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out, _ = jsontext.AppendQuote(out, name.String()) // valid UTF-8: the decoder checked it
		out = append(out, ':')
		switch {
		case sub != nil && dec.PeekKind() == '{':
			out, err = project(dec, sub, out)
		case sub != nil && dec.PeekKind() == '[':
			out, err = projectArray(dec, sub, out)
		default:
			var v jsontext.Value
			v, err = dec.ReadValue()
			out = append(out, v...)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return nil, err
	}
	return append(out, '}'), nil
}

// projectArray reads the array at the decoder and appends it to out with
// each object in it projected onto k; other values are kept whole.
func projectArray(dec *jsontext.Decoder, k keep, out []byte) ([]byte, error) {
	if _, err := dec.ReadToken(); err != nil { // '['
		return nil, err
	}
	out = append(out, '[')
	for n := 0; dec.PeekKind() != ']'; n++ {
		if n > 0 {
			out = append(out, ',')
		}
		var err error
		if dec.PeekKind() == '{' {
			out, err = project(dec, k, out)
		} else {
			var v jsontext.Value
			v, err = dec.ReadValue()
			out = append(out, v...)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil { // ']'
		return nil, err
	}
	return append(out, ']'), nil
}
