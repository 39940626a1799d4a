//! `<formats>`: every format's texel-block layout (registry.rnc's `Formats`). vk.xml has had it
//! since 1.2.1xx; older registries have none, and the generated table is then empty rather than
//! an error (a 1.1 registry still generates).
//!
//! Numbers are read strictly (a `blockSize` that is not an integer is a schema error naming the
//! element); children and attributes vkgen does not know are tolerated with a warning, as
//! everywhere in the registry reader. Meaning (numeric formats, compression schemes, plane
//! references) is checked where it is used, by the emitter (`emit/formats.rs`).

use roxmltree::Node;

use super::parse::Cx;
use super::text::clip;
use crate::error::Result;
use crate::model::{Format, FormatComponent, FormatPlane};

const FORMAT_ATTRIBUTES: &[&str] = &[
    "name",
    "class",
    "blockSize",
    "texelsPerBlock",
    "blockExtent",
    "packed",
    "compressed",
    "chroma",
];

impl Cx<'_> {
    pub(super) fn parse_formats(&self, n: Node, warnings: &mut Vec<String>) -> Result<Vec<Format>> {
        let mut out: Vec<Format> = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for f in n.children().filter(Node::is_element) {
            if !f.has_tag_name("format") {
                self.unknown(f, "formats", warnings);
                continue;
            }
            let format = self.parse_format(f, warnings)?;
            if let Some(line) = seen.insert(format.name.clone(), format.line) {
                return Err(self.schema(
                    f,
                    format!(
                        "format `{}` is described twice; the first is at line {line}",
                        clip(&format.name)
                    ),
                ));
            }
            out.push(format);
        }
        Ok(out)
    }

    fn parse_format(&self, f: Node, warnings: &mut Vec<String>) -> Result<Format> {
        for a in f.attributes() {
            if !FORMAT_ATTRIBUTES.contains(&a.name()) {
                warnings.push(format!(
                    "{}:{}: ignored unknown attribute `{}` of <format>",
                    self.path.display(),
                    self.line(f),
                    a.name()
                ));
            }
        }
        let name = self.required(f, "name")?.to_owned();
        let extent = match f.attribute("blockExtent") {
            None => [1, 1, 1],
            Some(text) => {
                let parts: Vec<&str> = text.split(',').map(str::trim).collect();
                let [x, y, z] = parts[..] else {
                    return Err(self.schema(
                        f,
                        format!("{name}: blockExtent `{}` is not x,y,z", clip(text)),
                    ));
                };
                [
                    self.number(f, "blockExtent", x)?,
                    self.number(f, "blockExtent", y)?,
                    self.number(f, "blockExtent", z)?,
                ]
            }
        };
        let mut format = Format {
            class: self.required(f, "class")?.to_owned(),
            block_size: self.number(f, "blockSize", self.required(f, "blockSize")?)?,
            texels_per_block: self.number(
                f,
                "texelsPerBlock",
                self.required(f, "texelsPerBlock")?,
            )?,
            block_extent: extent,
            packed: self.optional_number(f, "packed")?,
            compressed: f.attribute("compressed").map(str::to_owned),
            chroma: self.optional_number(f, "chroma")?,
            components: Vec::new(),
            planes: Vec::new(),
            spirv_image_formats: Vec::new(),
            line: self.line(f),
            name,
        };
        for c in f.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "component" => format.components.push(self.parse_component(c)?),
                "plane" => format.planes.push(FormatPlane {
                    index: self.number(c, "index", self.required(c, "index")?)?,
                    width_divisor: self.number(
                        c,
                        "widthDivisor",
                        self.required(c, "widthDivisor")?,
                    )?,
                    height_divisor: self.number(
                        c,
                        "heightDivisor",
                        self.required(c, "heightDivisor")?,
                    )?,
                    compatible: self.required(c, "compatible")?.to_owned(),
                }),
                "spirvimageformat" => format
                    .spirv_image_formats
                    .push(self.required(c, "name")?.to_owned()),
                _ => self.unknown(c, "format", warnings),
            }
        }
        if format.components.is_empty() {
            return Err(self.schema(
                f,
                format!("format `{}` has no <component>", clip(&format.name)),
            ));
        }
        Ok(format)
    }

    fn parse_component(&self, c: Node) -> Result<FormatComponent> {
        let bits = match self.required(c, "bits")? {
            "compressed" => None,
            b => Some(self.number(c, "bits", b)?),
        };
        Ok(FormatComponent {
            name: self.required(c, "name")?.to_owned(),
            bits,
            numeric_format: self.required(c, "numericFormat")?.to_owned(),
            plane_index: self.optional_number(c, "planeIndex")?,
        })
    }

    fn required<'n>(&self, n: Node<'n, '_>, attr: &str) -> Result<&'n str> {
        n.attribute(attr)
            .ok_or_else(|| self.schema(n, format!("<{}> without `{attr}`", n.tag_name().name())))
    }

    fn number(&self, n: Node, attr: &str, text: &str) -> Result<u32> {
        text.trim().parse().map_err(|_| {
            self.schema(
                n,
                format!(
                    "<{}> `{attr}` is `{}`, not an unsigned integer",
                    n.tag_name().name(),
                    clip(text)
                ),
            )
        })
    }

    fn optional_number(&self, n: Node, attr: &str) -> Result<Option<u32>> {
        n.attribute(attr)
            .map(|t| self.number(n, attr, t))
            .transpose()
    }

    fn unknown(&self, n: Node, parent: &str, warnings: &mut Vec<String>) {
        warnings.push(format!(
            "{}:{}: ignored unknown element <{}> in <{parent}>",
            self.path.display(),
            self.line(n),
            n.tag_name().name()
        ));
    }
}
