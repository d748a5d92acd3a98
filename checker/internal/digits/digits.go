// Package digits holds the table of two-digit numbers that greenlight's
// hand-written encoders of times and integers (checker's RFC 3339 times,
// render's JSON numbers) write decimal digits with, two at a time.
package digits

// Pairs holds the two ASCII digits of each number 00 to 99, in order:
// Pairs[2*v] and Pairs[2*v+1] are v's tens and units.
const Pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
