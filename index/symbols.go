package index

// Sym is an interned string id. 0 is the empty string.
type Sym uint32

// Symbols interns strings to dense ids. The zero value is not usable; call
// NewSymbols.
type Symbols struct {
	ids  map[string]Sym
	strs []string
}

// NewSymbols returns a table holding only the empty string (id 0).
func NewSymbols() *Symbols {
	return &Symbols{ids: map[string]Sym{"": 0}, strs: []string{""}}
}

// Intern returns the id of s, adding it if new.
func (s *Symbols) Intern(str string) Sym {
	if id, ok := s.ids[str]; ok {
		return id
	}
	id := Sym(len(s.strs))
	s.ids[str] = id
	s.strs = append(s.strs, str)
	return id
}

// Lookup returns the id of str and whether it is known.
func (s *Symbols) Lookup(str string) (Sym, bool) {
	id, ok := s.ids[str]
	return id, ok
}

// String returns the string of id.
func (s *Symbols) String(id Sym) string { return s.strs[id] }

// Len is the number of interned strings.
func (s *Symbols) Len() int { return len(s.strs) }
