#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
// Subgroup operations with a subgroup of one invocation.
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { uint v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    uint r = subgroupAdd(x) + subgroupExclusiveAdd(x) * 1000 + subgroupMax(x);
    r += subgroupElect() ? 1u : 0u;
    r += subgroupBallot(x > 10).x * 10;
    r += subgroupBallotBitCount(uvec4(1, 0, 0, 0)) * 100;
    r += gl_SubgroupSize * 10000 + gl_SubgroupInvocationID + gl_NumSubgroups * 100000 + gl_SubgroupID * 1000000;
    r += subgroupShuffle(x, 0) + subgroupBroadcastFirst(x) + (subgroupAll(x > 3) ? 7 : 0);
    r += subgroupExclusiveMul(x) * 20000000;
    v[i] = r;
}
