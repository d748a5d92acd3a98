package runstore

// Identity is one person named by the log: as spelled (Name), the key
// people are compared by (Key, "" for nobody: package checker's
// identityKey) and the line that names them.
type Identity struct {
	Name string
	Key  string
	Line int
}

// People is a set of the identities one run names (its requesters, or its
// approvers). Most runs name one or two, kept in a short list; past
// peopleListMax the list is indexed by maps, so that a log that spells a new
// name on every event costs no square of its length.
type People struct {
	list    []Identity
	spelled map[string]bool
	keys    map[string]int // key -> index in list of its first identity
}

const peopleListMax = 8

// SpelledBefore reports whether name, spelled exactly so, is in the set (a
// nil set is empty).
func (p *People) SpelledBefore(name string) bool {
	if p == nil {
		return false
	}
	if p.spelled != nil {
		return p.spelled[name]
	}
	for _, id := range p.list {
		if id.Name == name {
			return true
		}
	}
	return false
}

// ByKey returns the first identity with the key; a key "" names nobody and
// matches none.
func (p *People) ByKey(key string) (Identity, bool) {
	if p == nil || key == "" {
		return Identity{}, false
	}
	if p.keys != nil {
		i, ok := p.keys[key]
		if !ok {
			return Identity{}, false
		}
		return p.list[i], true
	}
	for _, id := range p.list {
		if id.Key == key {
			return id, true
		}
	}
	return Identity{}, false
}

// Len is how many identities the set holds.
func (p *People) Len() int {
	if p == nil {
		return 0
	}
	return len(p.list)
}

// Add puts an identity in the set unless its spelling is there already.
func (p *People) Add(id Identity) {
	if p.SpelledBefore(id.Name) {
		return
	}
	p.list = append(p.list, id)
	if p.spelled == nil && len(p.list) > peopleListMax {
		p.spelled, p.keys = make(map[string]bool, len(p.list)), make(map[string]int, len(p.list))
		for i, x := range p.list[:len(p.list)-1] {
			p.index(i, x)
		}
	}
	if p.spelled != nil {
		p.index(len(p.list)-1, id)
	}
}

func (p *People) index(i int, id Identity) {
	p.spelled[id.Name] = true
	if _, ok := p.keys[id.Key]; !ok && id.Key != "" {
		p.keys[id.Key] = i
	}
}
