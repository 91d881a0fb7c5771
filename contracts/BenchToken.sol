// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title BenchToken
/// @notice An ERC-20 for the indexer benchmark (bench/indexer.ts): one transaction makes hundreds of
/// Transfer events. `spray` mints to many addresses, `shuffle` moves balances between any two holders
/// without an allowance. Test-only: anyone may call both.
contract BenchToken {
    string public constant name = "Bench Token";
    string public constant symbol = "BENCH";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error LengthMismatch(uint256 from, uint256 to);
    error InsufficientBalance(address holder, uint256 balance, uint256 needed);
    error ZeroAddress();

    /// @notice Mints `amount` to each address in `to`, one Transfer from address(0) per recipient.
    function spray(address[] calldata to, uint256 amount) external {
        uint256 count = to.length;
        for (uint256 i = 0; i < count; ++i) {
            address recipient = to[i];
            if (recipient == address(0)) revert ZeroAddress();
            balanceOf[recipient] += amount;
            emit Transfer(address(0), recipient, amount);
        }
        totalSupply += amount * count;
    }

    /// @notice Moves `amount` from `from[i]` to `to[i]` for every i, one Transfer per move.
    function shuffle(address[] calldata from, address[] calldata to, uint256 amount) external {
        uint256 count = from.length;
        if (count != to.length) revert LengthMismatch(count, to.length);
        for (uint256 i = 0; i < count; ++i) {
            address sender = from[i];
            address recipient = to[i];
            if (recipient == address(0)) revert ZeroAddress();
            uint256 balance = balanceOf[sender];
            if (balance < amount) revert InsufficientBalance(sender, balance, amount);
            unchecked {
                balanceOf[sender] = balance - amount;
            }
            balanceOf[recipient] += amount;
            emit Transfer(sender, recipient, amount);
        }
    }
}
