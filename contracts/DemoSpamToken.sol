// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title DemoSpamToken
/// @notice The demo's spam-shaped ERC-20: a lure for a name, `airdrop` hands it to many addresses in
/// one transaction, and `claimRewards` takes ether for nothing, as scam airdrops do. For the spam flags.
contract DemoSpamToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error InsufficientBalance(address holder, uint256 balance, uint256 needed);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    /// @notice Mints `amount` to each recipient: the fan-out the spam heuristics look for.
    function airdrop(address[] calldata recipients, uint256 amount) external {
        for (uint256 i = 0; i < recipients.length; i++) {
            balanceOf[recipients[i]] += amount;
            emit Transfer(address(0), recipients[i], amount);
        }
        totalSupply += amount * recipients.length;
    }

    /// @notice The lure: pays nothing back.
    function claimRewards() external payable {}

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 balance = balanceOf[msg.sender];
        if (balance < amount) revert InsufficientBalance(msg.sender, balance, amount);
        balanceOf[msg.sender] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }
}
