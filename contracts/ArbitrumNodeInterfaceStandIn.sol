// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title A stand-in for Arbitrum's NodeInterface, for tests on anvil only.
/// @notice On Arbitrum, NodeInterface (0x00000000000000000000000000000000000000C8) is not a contract: the
///         Nitro node answers calls to it itself. Tests install this code there with anvil_setCode so
///         that the bundler asks it exactly as it asks Nitro (same address, same ABI). Its L1 estimate is
///         a plain stand-in for Nitro's: 16 L1 gas per byte of the transaction (its calldata plus 140
///         bytes for the rest of a signed transaction, no compression) at `l1BaseFeeEstimate` (what a
///         test sets), converted to L2 gas at the block's base fee, never below
///         Arbitrum One's 0.01 gwei floor.
contract ArbitrumNodeInterfaceStandIn {
    uint256 public l1BaseFeeEstimate;

    uint256 private constant MIN_BASE_FEE = 0.01 gwei;
    uint256 private constant TRANSACTION_OVERHEAD_BYTES = 140;

    event L1BaseFeeEstimateSet(uint256 l1BaseFeeEstimate);

    /// @notice What Nitro learns from the L1 batches it posts; anyone may set it on a test chain.
    function setL1BaseFeeEstimate(uint256 wei_) external {
        l1BaseFeeEstimate = wei_;
        emit L1BaseFeeEstimateSet(wei_);
    }

    function gasEstimateL1Component(address, bool, bytes calldata data)
        external
        payable
        returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimateNow)
    {
        baseFee = block.basefee < MIN_BASE_FEE ? MIN_BASE_FEE : block.basefee;
        l1BaseFeeEstimateNow = l1BaseFeeEstimate;
        uint256 l1Cost = (data.length + TRANSACTION_OVERHEAD_BYTES) * 16 * l1BaseFeeEstimateNow;
        gasEstimateForL1 = uint64((l1Cost + baseFee - 1) / baseFee);
    }
}
