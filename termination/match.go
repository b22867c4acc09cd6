package termination

import (
	"encoding/binary"
	"strings"
)

// This file holds the byte-level machinery of the text reader: the one-pass needle matcher and
// the word-at-a-time (SWAR) helpers that lower-case text and find the end of a JSON string. They
// run over every byte the classifier reads, so they work on eight bytes at a time where they can.

// needle is the index of one lower-case ASCII substring in the matcher.
type needle uint8

// needleSet is the set of needles found in a text.
type needleSet [4]uint64

func (s *needleSet) add(n needle)      { s[n>>6] |= 1 << (n & 63) }
func (s *needleSet) has(n needle) bool { return s[n>>6]&(1<<(n&63)) != 0 }

// hasAll reports whether s holds every needle of t.
func (s *needleSet) hasAll(t *needleSet) bool {
	return s[0]&t[0] == t[0] && s[1]&t[1] == t[1] && s[2]&t[2] == t[2] && s[3]&t[3] == t[3]
}

// intersects reports whether s and t hold a needle in common.
func (s *needleSet) intersects(t *needleSet) bool {
	return s[0]&t[0]|s[1]&t[1]|s[2]&t[2]|s[3]&t[3] != 0
}

// textScan is what one pass of the matcher finds in a text: the needles it holds and, for each
// counted needle (needleMatcher.countAfter), the count that follows its first occurrence to be
// followed by one.
type textScan struct {
	needleSet
	counts [maxCounted]textCount
}

// textCount is a count read after a needle; ok is false when no occurrence had one.
type textCount struct {
	n  int64
	ok bool
}

// maxCounted is how many needles the matcher can read counts after.
const maxCounted = 2

// needleMatcher finds every needle of a fixed list in a text in one pass. Each needle is filed
// under a hash of its first four bytes; a position of the text is looked up by the hash of its
// own four bytes, and is only compared against the needles filed there. The comparison reads the
// text as two eight-byte words: a candidate whose first sixteen bytes (fewer for a shorter
// needle) differ is rejected with two masked compares, so the common four-byte collisions
// ("limi", "requ", "the ") cost no call. Built once at package initialisation, then read-only.
type needleMatcher struct {
	needles []string
	index   map[string]needle // used while building only

	// slot maps a hash to 1 + its bucket, 0 for none. Bucket b's entries are
	// entries[start[b]:start[b+1]], in the order their needles were filed.
	slot    [1 << quadBits]uint8
	start   [257]uint16
	entries []matchEntry
	nbucket int
	counted int // how many needles have a count read after them
}

// matchEntry is one needle as filed in a bucket: its first sixteen bytes as two little-endian
// words with the masks of the bytes it has, so a needle of up to sixteen bytes is compared
// without a call.
type matchEntry struct {
	head, mask   uint64 // bytes 0 to 7
	head2, mask2 uint64 // bytes 8 to 15
	size         int    // the needle's length
	n            needle
	count        uint8 // 1 + the index in textScan.counts of the count read after it, 0 for none
}

// quadBits is the size of the hash of a needle's first four bytes.
const quadBits = 12

// quadHash hashes four bytes, given as a little-endian word.
func quadHash(v uint32) uint32 {
	return (v * 0x9e3779b1) >> (32 - quadBits)
}

// intern files s and returns its needle. Needles are printable lower-case ASCII, at least four
// bytes, and at most 256 of them; a needle list that breaks these rules is a programming error,
// which the package's own initialisation (and so every test) would panic on.
func (m *needleMatcher) intern(s string) needle {
	if n, ok := m.index[s]; ok {
		return n
	}
	if len(s) < 4 || len(m.needles) >= 256 || strings.ToLower(s) != s {
		panic("termination: bad needle " + s)
	}
	for i := range len(s) {
		if s[i] < 0x20 || s[i] >= 0x80 {
			panic("termination: non-printable or non-ASCII needle " + s)
		}
	}
	if m.index == nil {
		m.index = make(map[string]needle)
	}
	n := needle(len(m.needles))
	m.needles = append(m.needles, s)
	m.index[s] = n

	var head, mask [16]byte
	k := copy(head[:], s)
	for i := range k {
		mask[i] = 0xff
	}
	e := matchEntry{
		head: binary.LittleEndian.Uint64(head[:8]), mask: binary.LittleEndian.Uint64(mask[:8]),
		head2: binary.LittleEndian.Uint64(head[8:]), mask2: binary.LittleEndian.Uint64(mask[8:]),
		size: len(s), n: n,
	}
	h := quadHash(binary.LittleEndian.Uint32(head[:4]))
	if m.slot[h] == 0 {
		if m.nbucket >= 255 {
			panic("termination: too many needle buckets")
		}
		m.nbucket++
		m.slot[h] = uint8(m.nbucket)
		m.start[m.nbucket] = uint16(len(m.entries))
	}
	// Insert e at the end of its bucket, and move the later buckets' starts up by one.
	b := int(m.slot[h]) - 1
	at := int(m.start[b+1])
	m.entries = append(m.entries, matchEntry{})
	copy(m.entries[at+1:], m.entries[at:])
	m.entries[at] = e
	for j := b + 1; j <= m.nbucket; j++ {
		m.start[j]++
	}
	return n
}

// countAfter makes every scan read the count that follows n (countAt), and returns the index of
// that count in textScan.counts. Occurrences are found in text order, so the count kept is the
// one after the first occurrence that has one.
func (m *needleMatcher) countAfter(n needle) int {
	if m.counted >= maxCounted {
		panic("termination: too many counted needles")
	}
	k := m.counted
	m.counted++
	for j := range m.entries {
		if m.entries[j].n == n {
			m.entries[j].count = uint8(k + 1)
		}
	}
	return k
}

// interns files every string of ss.
func (m *needleMatcher) interns(ss ...string) []needle {
	ns := make([]needle, len(ss))
	for i, s := range ss {
		ns[i] = m.intern(s)
	}
	return ns
}

// internSet files every string of ss and returns their needles as a set.
func (m *needleMatcher) internSet(ss ...string) needleSet {
	var set needleSet
	for _, s := range ss {
		set.add(m.intern(s))
	}
	return set
}

// scan returns the set of needles found in text.
//
// The main loop hashes four consecutive positions per step; about one position in fifteen of
// typical error text hits a bucket, so the four lookups are tested together. The hashing, one
// multiply per position, is what the loop costs.
func (m *needleMatcher) scan(text []byte) textScan {
	var set textScan
	i := 0
	for ; i+8 <= len(text); i += 4 {
		t := text[i : i+8 : i+8]
		b0 := m.slot[quadHash(binary.LittleEndian.Uint32(t[0:4]))]
		b1 := m.slot[quadHash(binary.LittleEndian.Uint32(t[1:5]))]
		b2 := m.slot[quadHash(binary.LittleEndian.Uint32(t[2:6]))]
		b3 := m.slot[quadHash(binary.LittleEndian.Uint32(t[3:7]))]
		if b0|b1|b2|b3 == 0 {
			continue
		}
		if b0 != 0 {
			m.check(&set, text[i:], b0)
		}
		if b1 != 0 {
			m.check(&set, text[i+1:], b1)
		}
		if b2 != 0 {
			m.check(&set, text[i+2:], b2)
		}
		if b3 != 0 {
			m.check(&set, text[i+3:], b3)
		}
	}
	for ; i+4 <= len(text); i++ {
		if b := m.slot[quadHash(binary.LittleEndian.Uint32(text[i:i+4]))]; b != 0 {
			m.check(&set, text[i:], b)
		}
	}
	return set
}

// check adds to set the needles of bucket b (1-based) that rest begins with, and reads the
// count after a counted one until it has it.
func (m *needleMatcher) check(set *textScan, rest []byte, b uint8) {
	// The first sixteen bytes, zero-padded past the end. No needle holds a zero byte, and the
	// length test rejects a needle longer than rest before its bytes are compared.
	var w, w2 uint64
	if len(rest) >= 16 {
		w, w2 = binary.LittleEndian.Uint64(rest[:8]), binary.LittleEndian.Uint64(rest[8:16])
	} else {
		var pad [16]byte
		copy(pad[:], rest)
		w, w2 = binary.LittleEndian.Uint64(pad[:8]), binary.LittleEndian.Uint64(pad[8:])
	}
	for j := m.start[b-1]; j < m.start[b]; j++ {
		e := &m.entries[j]
		if e.size > len(rest) || w&e.mask != e.head || w2&e.mask2 != e.head2 {
			continue
		}
		if e.size <= 16 || string(rest[16:e.size]) == m.needles[e.n][16:] {
			set.add(e.n)
			if e.count != 0 && !set.counts[e.count-1].ok {
				c := &set.counts[e.count-1]
				c.n, c.ok = countAt(rest[e.size:])
			}
		}
	}
}

// SWAR constants: a byte repeated across a word, and the high bit of every byte.
const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// lowerASCII lower-cases the ASCII capitals of b in place and leaves every other byte as it is,
// eight bytes at a time.
func lowerASCII(b []byte) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if up := upperMask(w); up != 0 {
			binary.LittleEndian.PutUint64(b[i:], w|up>>2) // 0x80>>2 is the case bit, 0x20
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
}

// appendLower appends s to b with its ASCII capitals lower-cased, copying and lower-casing eight
// bytes at a time.
func appendLower(b []byte, s string) []byte {
	n := len(b)
	b = append(b, make([]byte, len(s))...) // grows b without a temporary
	dst := b[n:]
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := loadString64(s[i : i+8])
		binary.LittleEndian.PutUint64(dst[i:i+8], w|upperMask(w)>>2)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return b
}

// upperMask returns the high bit of every byte of w that is an ASCII capital, 'A' to 'Z'. The
// high bits are cleared before adding, so no sum carries into the next byte.
func upperMask(w uint64) uint64 {
	low := w &^ swarHigh
	atLeastA := low + (0x80-'A')*swarOnes      // high bit set where low >= 'A'
	pastZ := low + (0x80-'Z'-1)*swarOnes       // high bit set where low > 'Z'
	return (atLeastA &^ pastZ) &^ w & swarHigh // and the byte itself was ASCII
}

// ctrlRun returns the index of the first control character (below 0x20) in s, or len(s),
// testing eight bytes at a time.
func ctrlRun(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if w := loadString64(s[i : i+8]); (w-0x20*swarOnes)&^w&swarHigh != 0 {
			break
		}
	}
	for i < len(s) && s[i] >= 0x20 {
		i++
	}
	return i
}

// jsonSpecialIn reports whether a word may hold a quote, a backslash or a byte below 0x20. It
// is exact about "none"; on "some" the caller finds the byte one at a time.
func jsonSpecialIn(w uint64) bool {
	return (hasZeroByte(w^('"'*swarOnes)) | hasZeroByte(w^('\\'*swarOnes)) | (w-0x20*swarOnes)&^w&swarHigh) != 0
}

// hasZeroByte is non-zero when some byte of w is zero.
func hasZeroByte(w uint64) uint64 {
	return (w - swarOnes) &^ w & swarHigh
}

// loadString64 reads eight bytes of s (len(s) == 8) as a little-endian word. The compiler
// merges the byte loads into one.
func loadString64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if loadString64(s[i:i+8])&swarHigh != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
