// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title DemoSpamNft
/// @notice The demo's spam-shaped ERC-721: minted straight into many wallets in one transaction, none
/// of which asked for it, with a lure for a name. For the spam flags; tokens cannot be moved.
contract DemoSpamNft {
    string public name;
    string public symbol;
    uint256 public totalSupply;

    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    error NonexistentToken(uint256 tokenId);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f;
    }

    function balanceOf(address owner) external view returns (uint256) {
        return _balances[owner];
    }

    function ownerOf(uint256 tokenId) public view returns (address owner) {
        owner = _owners[tokenId];
        if (owner == address(0)) revert NonexistentToken(tokenId);
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return "data:application/json,{\"name\":\"Reward pass\",\"description\":\"Claim your reward at visit-nft-rewards.xyz\"}";
    }

    /// @notice One new token to each recipient, ids following the supply.
    function airdrop(address[] calldata recipients) external {
        uint256 next = totalSupply;
        for (uint256 i = 0; i < recipients.length; i++) {
            next += 1;
            _owners[next] = recipients[i];
            _balances[recipients[i]] += 1;
            emit Transfer(address(0), recipients[i], next);
        }
        totalSupply = next;
    }
}
