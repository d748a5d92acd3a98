package wasmtest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/greenlight-ci/greenlight/checker/render"
)

// checkLegendIcons checks that the legend under selector (a list of
// elements, one per state of render.StateMarks, in order) draws each
// state's symbol without a font: an inline SVG icon whose disc's computed
// fill is the state's colour, whose glyph is stroked in white, which takes
// room on the page, and whose pixels at the top centre are the state's colour
// in a screenshot. It works with scripts disabled (DevTools reads the
// computed style and takes the screenshot).
func checkLegendIcons(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	for i, m := range render.StateMarks() {
		item := fmt.Sprintf("%s:nth-of-type(%d)", selector, i+1)
		disc := style(t, ctx, item+" svg.icon circle")
		if want := rgb(t, m.Colour); disc["fill"] != want {
			t.Errorf("%s: the icon's disc is filled %q, want %s (%s)", m.State, disc["fill"], want, m.Colour)
		}
		glyph := style(t, ctx, item+" svg.icon path")
		if glyph["stroke"] != "rgb(255, 255, 255)" {
			t.Errorf("%s: the glyph is stroked %q, want white", m.State, glyph["stroke"])
		}
		icon := style(t, ctx, item+" svg.icon")
		w, _ := strconv.ParseFloat(trimPx(icon["width"]), 64)
		h, _ := strconv.ParseFloat(trimPx(icon["height"]), 64)
		if w < 8 || h < 8 {
			t.Errorf("%s: the icon is %s by %s", m.State, icon["width"], icon["height"])
		}
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(item+" svg.icon")))
		if err != nil {
			t.Fatalf("%s: screenshot of the icon: %v", m.State, err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		// Top centre, inside the disc and above every glyph (each stays
		// within y 3.5 to 12.5 of the 16 by 16 box).
		at := image.Pt(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/8)
		r, g, bl, _ := img.At(at.X, at.Y).RGBA()
		got := fmt.Sprintf("rgb(%d, %d, %d)", r>>8, g>>8, bl>>8)
		if want := rgb(t, m.Colour); !near(got, want) {
			t.Errorf("%s: the icon's pixel at %v is %s, want about %s", m.State, at, got, want)
		}
	}
}

// style is the computed style of the first element selector matches.
func style(t *testing.T, ctx context.Context, selector string) map[string]string {
	t.Helper()
	props, err := chromedp.Run(ctx, chromedp.ComputedStyle(chromedp.CSS(selector)))
	if err != nil {
		t.Fatalf("computed style of %s: %v", selector, err)
	}
	out := map[string]string{}
	for _, p := range props {
		out[p.Name] = p.Value
	}
	return out
}

// rgb turns "#rrggbb" into CSS's computed "rgb(r, g, b)".
func rgb(t *testing.T, hex string) string {
	t.Helper()
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if len(hex) != 7 || err != nil {
		t.Fatalf("colour %q is not #rrggbb", hex)
	}
	return fmt.Sprintf("rgb(%d, %d, %d)", v>>16, v>>8&0xff, v&0xff)
}

// near says whether two "rgb(r, g, b)" colours differ by at most 24 in
// each channel (antialiasing and colour management).
func near(a, b string) bool {
	var r1, g1, b1, r2, g2, b2 int
	if _, err := fmt.Sscanf(a, "rgb(%d, %d, %d)", &r1, &g1, &b1); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(b, "rgb(%d, %d, %d)", &r2, &g2, &b2); err != nil {
		return false
	}
	d := func(x, y int) bool { return x-y <= 24 && y-x <= 24 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

func trimPx(s string) string {
	if len(s) > 2 && s[len(s)-2:] == "px" {
		return s[:len(s)-2]
	}
	return s
}
