//! [`DType`]: the element type of a checkpoint's weights, its names and its bytes.

/// The element type of a checkpoint's weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE binary32 (`torch.float32`, safetensors `F32`).
    F32,
    /// bfloat16 (`torch.bfloat16`, safetensors `BF16`).
    BF16,
    /// IEEE binary16 (`torch.float16`, safetensors `F16`).
    F16,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::BF16 | DType::F16 => 2,
        }
    }

    /// The name `config.json` uses (`"float32"`, `"bfloat16"`, `"float16"`).
    pub fn config_name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::BF16 => "bfloat16",
            DType::F16 => "float16",
        }
    }

    /// The dtype `config.json` names `name`, if it is one of the three supported.
    pub fn from_config_name(name: &str) -> Option<DType> {
        match name {
            "float32" => Some(DType::F32),
            "bfloat16" => Some(DType::BF16),
            "float16" => Some(DType::F16),
            _ => None,
        }
    }

    /// `values` rounded to this dtype (round to nearest even), as little-endian bytes.
    pub fn encode(self, values: &[f32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(values.len() * self.size());
        for &v in values {
            match self {
                DType::F32 => out.extend_from_slice(&v.to_le_bytes()),
                DType::BF16 => out.extend_from_slice(&half::bf16::from_f32(v).to_le_bytes()),
                DType::F16 => out.extend_from_slice(&half::f16::from_f32(v).to_le_bytes()),
            }
        }
        out
    }

    /// Little-endian `bytes` of this dtype, widened to `f32` (exact for all three). Trailing
    /// bytes that do not make a whole element are ignored.
    pub fn decode(self, bytes: &[u8]) -> Vec<f32> {
        match self {
            DType::F32 => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            DType::BF16 => bytes
                .chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            DType::F16 => bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
        }
    }
}

impl std::fmt::Display for DType {
    /// The safetensors name: `F32`, `BF16`, `F16`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DType::F32 => "F32",
            DType::BF16 => "BF16",
            DType::F16 => "F16",
        })
    }
}
