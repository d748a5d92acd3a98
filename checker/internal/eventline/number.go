package eventline

import "bytes"

// Bounds of the integer fields, as schemas/event.schema.json states them.
const (
	MaxStageInt    = 2147483647
	maxAttempt     = 2147483647
	minReturncode  = -2147483648
	maxReturncode  = 4294967295
	maxExactDigits = 18 // any integer of at most 18 digits fits an int64
)

// JSONInteger reads a JSON number literal (RFC 8259 grammar, assumed valid)
// and reports its value when it is mathematically an integer that fits an
// int64 with at most 18 significant digits, as JSON Schema's "integer" type
// counts integers: 1.0, 1e2 and 100e-2 are integers, 1.5 is not. A value too
// large to represent is reported as not ok; callers treat it as out of range,
// which the schema's minimum/maximum also reject.
func JSONInteger(lit string) (int64, bool) {
	i := 0
	neg := false
	if i < len(lit) && lit[i] == '-' {
		neg = true
		i++
	}
	// Collect the significant digits of the integer and fraction parts.
	var digits [maxExactDigits + 1]byte
	n := 0
	exp := 0 // decimal exponent applied to the digits collected
	overflow := false
	leading := true
	for ; i < len(lit) && lit[i] >= '0' && lit[i] <= '9'; i++ {
		if leading && lit[i] == '0' {
			continue
		}
		leading = false
		if n < len(digits) {
			digits[n] = lit[i]
			n++
		} else {
			exp++ // a digit past what we track still scales the value
			if lit[i] != '0' {
				overflow = true
			}
		}
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		for ; i < len(lit) && lit[i] >= '0' && lit[i] <= '9'; i++ {
			if leading && lit[i] == '0' {
				exp--
				continue
			}
			leading = false
			if n < len(digits) {
				digits[n] = lit[i]
				n++
				exp--
			} else if lit[i] != '0' {
				overflow = true // a significant digit beyond what we track
			}
		}
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		e := 0
		for ; i < len(lit) && lit[i] >= '0' && lit[i] <= '9'; i++ {
			if e < 1_000_000_000 {
				e = e*10 + int(lit[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if n == 0 {
		return 0, true // the value is zero, whatever its exponent
	}
	// Drop trailing zero digits into the exponent.
	for n > 0 && digits[n-1] == '0' {
		n--
		exp++
	}
	if exp < 0 {
		return 0, false // a fractional part remains: not an integer
	}
	if overflow || n+exp > maxExactDigits {
		return 0, false
	}
	var v int64
	for k := 0; k < n; k++ {
		v = v*10 + int64(digits[k]-'0')
	}
	for ; exp > 0; exp-- {
		v *= 10
	}
	if neg {
		v = -v
	}
	return v, true
}

// hugeNumber finds a contract field whose raw value is a number with a
// decimal exponent beyond ±400 and returns the field's name and the literal;
// "" when there is none. Such numbers are outside every range of the event
// schema, and checking them with math/big is slow.
func (d *Decoder) hugeNumber() (field, lit string) {
	for f := range d.raw {
		if d.kind[f] != '0' {
			continue
		}
		raw := d.raw[f]
		e := bytes.IndexAny(raw, "eE")
		if e < 0 {
			continue
		}
		if !bytes.ContainsAny(raw[:e], "123456789") {
			continue // zero, whatever its exponent
		}
		digits := bytes.TrimLeft(raw[e+1:], "+-")
		digits = bytes.TrimLeft(digits, "0")
		if len(digits) > 3 || (len(digits) == 3 && string(digits) > "400") {
			return d.names[f], string(raw)
		}
	}
	return "", ""
}
