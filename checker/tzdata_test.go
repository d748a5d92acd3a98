package checker_test

// The package does not embed the zone database (its importers choose); its
// tests do, so that the schedules in other zones they check resolve on a
// machine without one.
import _ "time/tzdata"
