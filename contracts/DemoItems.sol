// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data)
        external
        returns (bytes4);

    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external returns (bytes4);
}

/// @title DemoItems
/// @notice An ERC-1155 test collection: anyone may mint, burn and change metadata. `uri(id)` answers the
/// id's own URI when one was set, else the shared template containing `{id}`.
contract DemoItems {
    string public name;
    string public symbol;
    string public contractURI;
    string private _template;

    mapping(uint256 => mapping(address => uint256)) private _balances;
    mapping(address => mapping(address => bool)) private _operatorApprovals;
    mapping(uint256 => uint256) public totalSupply;
    mapping(uint256 => string) private _tokenURIs;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);
    event ContractURIUpdated();

    error InsufficientBalance(address holder, uint256 id, uint256 balance, uint256 needed);
    error NotAuthorized(address caller, address holder);
    error LengthMismatch(uint256 idsLength, uint256 valuesLength);
    error ZeroAddress();
    error UnsafeRecipient(address to);

    constructor(string memory name_, string memory symbol_, string memory template_) {
        name = name_;
        symbol = symbol_;
        _template = template_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0xd9b67a26 // ERC-1155
            || interfaceId == 0x0e89341c; // ERC-1155 metadata URI
    }

    function uri(uint256 id) external view returns (string memory) {
        string memory own = _tokenURIs[id];
        return bytes(own).length > 0 ? own : _template;
    }

    function balanceOf(address account, uint256 id) public view returns (uint256) {
        if (account == address(0)) revert ZeroAddress();
        return _balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory balances)
    {
        if (accounts.length != ids.length) revert LengthMismatch(ids.length, accounts.length);
        balances = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            balances[i] = balanceOf(accounts[i], ids[i]);
        }
    }

    function isApprovedForAll(address account, address operator) public view returns (bool) {
        return _operatorApprovals[account][operator];
    }

    function setApprovalForAll(address operator, bool approved) external {
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        _authorize(from);
        if (to == address(0)) revert ZeroAddress();
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
        _checkSingle(from, to, id, value, data);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external {
        _authorize(from);
        if (to == address(0)) revert ZeroAddress();
        if (ids.length != values.length) revert LengthMismatch(ids.length, values.length);
        for (uint256 i = 0; i < ids.length; i++) {
            _move(from, to, ids[i], values[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        _checkBatch(from, to, ids, values, data);
    }

    function mint(address to, uint256 id, uint256 value) external {
        if (to == address(0)) revert ZeroAddress();
        _balances[id][to] += value;
        totalSupply[id] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
        _checkSingle(address(0), to, id, value, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        if (to == address(0)) revert ZeroAddress();
        if (ids.length != values.length) revert LengthMismatch(ids.length, values.length);
        for (uint256 i = 0; i < ids.length; i++) {
            _balances[ids[i]][to] += values[i];
            totalSupply[ids[i]] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
        _checkBatch(address(0), to, ids, values, "");
    }

    function burn(address from, uint256 id, uint256 value) external {
        _move(from, address(0), id, value);
        totalSupply[id] -= value;
        emit TransferSingle(msg.sender, from, address(0), id, value);
    }

    function setURI(string calldata template) external {
        _template = template;
    }

    function setTokenURI(uint256 id, string calldata tokenUri) external {
        _tokenURIs[id] = tokenUri;
        emit URI(tokenUri, id);
    }

    function setContractURI(string calldata uri_) external {
        contractURI = uri_;
        emit ContractURIUpdated();
    }

    function _authorize(address from) private view {
        if (from != msg.sender && !isApprovedForAll(from, msg.sender)) revert NotAuthorized(msg.sender, from);
    }

    function _move(address from, address to, uint256 id, uint256 value) private {
        uint256 balance = _balances[id][from];
        if (balance < value) revert InsufficientBalance(from, id, balance, value);
        unchecked {
            _balances[id][from] = balance - value;
        }
        if (to != address(0)) _balances[id][to] += value;
    }

    function _checkSingle(address from, address to, uint256 id, uint256 value, bytes memory data) private {
        if (to.code.length == 0) return;
        try IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data) returns (bytes4 answer) {
            if (answer != IERC1155Receiver.onERC1155Received.selector) revert UnsafeRecipient(to);
        } catch {
            revert UnsafeRecipient(to);
        }
    }

    function _checkBatch(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes memory data)
        private
    {
        if (to.code.length == 0) return;
        try IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data) returns (bytes4 answer) {
            if (answer != IERC1155Receiver.onERC1155BatchReceived.selector) revert UnsafeRecipient(to);
        } catch {
            revert UnsafeRecipient(to);
        }
    }
}
