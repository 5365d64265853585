//! The PNG backend of Braid's figures: plotters' bitmap backend with its own text rasterizer.
//!
//! plotters 0.3.7 draws a string glyph by glyph from each glyph's pixel bounds, but places each at
//! the pen position truncated to a pixel and without the glyph's left side bearing, so letters sit
//! unevenly ("3 6 ports"). [`PngBackend`] forwards every call to [`BitMapBackend`] except text,
//! which it rasterizes with the same embedded font (`render::FONT`) at sub-pixel pen positions,
//! each glyph's outline placed where the font puts it (bearing and kerning included). The layout
//! box (anchoring, rotation) is plotters' own, so text lands where it did.

use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters::backend::{BitMapBackend, DrawingBackend};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// [`BitMapBackend`] with correctly placed glyphs (see the module comment).
pub struct PngBackend<'a> {
    inner: BitMapBackend<'a>,
    font: FontRef<'static>,
}

impl<'a> PngBackend<'a> {
    /// A picture of `size` pixels drawn into `rgb` (three bytes per pixel, row by row: `width ×
    /// height × 3` of them), text in `font` (the bytes of a TrueType font); [`write_png`] then
    /// encodes the pixels.
    pub fn new(
        rgb: &'a mut [u8],
        size: (u32, u32),
        font: &'static [u8],
    ) -> Result<PngBackend<'a>, String> {
        let font = FontRef::try_from_slice(font).map_err(|e| format!("the embedded font: {e}"))?;
        Ok(PngBackend { inner: BitMapBackend::with_buffer(rgb, size), font })
    }
}

/// Write `rgb` (three bytes per pixel, row by row, as [`PngBackend`] draws them) as an 8-bit RGB
/// PNG of `size` pixels to `path`.
pub fn write_png(path: &std::path::Path, rgb: &[u8], size: (u32, u32)) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("writing `{}`: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| fail(&e))?;
    w.write_image_data(rgb).map_err(|e| fail(&e))?;
    w.finish().map_err(|e| fail(&e))
}

type Res<E> = Result<(), DrawingErrorKind<E>>;

impl DrawingBackend for PngBackend<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Res<Self::ErrorType> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Res<Self::ErrorType> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res<Self::ErrorType> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_rect(ul, br, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res<Self::ErrorType> {
        self.inner.fill_polygon(vert, style)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (w, h): (u32, u32),
        src: &[u8],
    ) -> Res<Self::ErrorType> {
        self.inner.blit_bitmap(pos, (w, h), src)
    }

    /// plotters' anchoring and rotation around this backend's glyph placement.
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Res<Self::ErrorType> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) =
            style.layout_box(text).map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        let size = style.size() as f32;
        let font = self.font.as_scaled(size);
        // The baseline where plotters puts it: half the size below the top of the layout box.
        let baseline = size / 2.0;
        let mut pen = 0f32;
        let mut prev = None;
        let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), point(pen, baseline));
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                let (bx, by) = (b.min.x as i32, b.min.y as i32);
                outline.draw(|x, y, cov| pixels.push((bx + x as i32, by + y as i32, cov)));
            }
            pen += font.h_advance(id);
        }
        for (x, y, cov) in pixels {
            if cov <= 0.0 {
                continue;
            }
            let (x, y) = trans.transform(x + dx - min_x, y + dy - min_y);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                let c = BackendColor { alpha: color.alpha * cov.min(1.0) as f64, rgb: color.rgb };
                self.inner.draw_pixel((x, y), c)?;
            }
        }
        Ok(())
    }
}
