package formats

import (
	"bytes"
	"encoding/xml"
	"testing"
)

// escapeCases hold every character that appendEscapedXML replaces, the edges of XML's character
// range, and bytes that are not UTF-8.
var escapeCases = []string{
	"", "plain", `a"b'c&d<e>f`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "é日本\U0001F600", "\xff", "a\xc3",
	"\xed\xa0\x80", "\ufffd\ufffe\uffff", "\U0010FFFF", "\ud7ff\ue000", "&amp;", "]]>", "\xf4\x90\x80\x80",
}

func TestAppendEscapedXML(t *testing.T) {
	for _, s := range escapeCases {
		checkEscape(t, s)
	}
}

func FuzzAppendEscapedXML(f *testing.F) {
	for _, s := range escapeCases {
		f.Add(s)
	}
	f.Fuzz(checkEscape)
}

// checkEscape compares appendEscapedXML with encoding/xml's EscapeText, which it replaced.
func checkEscape(t *testing.T, s string) {
	t.Helper()
	var want bytes.Buffer
	if err := xml.EscapeText(&want, []byte(s)); err != nil {
		t.Fatal(err)
	}
	if got := appendEscapedXML([]byte("x"), []byte(s)); string(got) != "x"+want.String() {
		t.Errorf("appendEscapedXML(%q) = %q; encoding/xml: %q", s, got[1:], want.String())
	}
}
